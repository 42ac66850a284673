// The controls: activation, size (powers of two, with the count and bytes), leaky alpha, the
// input (generated or a picture file), Run / live / Cancel with progress, export folder and UI
// scale. Every control has a tooltip; errors show in red and never end the program.
#include <cstdio>
#include <string>

#include "format.h"
#include "shell.h"
#include "ui_helpers.h"

namespace gpulab::app {

void Shell::draw_controls(const FrameContext&) {
    const float label_w = ImGui::GetFontSize() * 7.0f;
    ImGui::PushItemWidth(-label_w);

    // [SECTION] op
    const auto current_label = std::string(core::activation_label(params_.activation));
    if (ImGui::BeginCombo("activation", current_label.c_str())) {
        for (core::Activation a : core::kAllActivations) {
            const std::string label(core::activation_label(a));
            if (ImGui::Selectable(label.c_str(), a == params_.activation)) params_.activation = a;
        }
        ImGui::EndCombo();
    }
    hover_tip("The function applied to every element. ReLU is one comparison; sigmoid, tanh and GELU need an "
              "exponential, yet all of them move the same bytes.");

    const bool leaky = params_.activation == core::Activation::LeakyRelu;
    ImGui::BeginDisabled(!leaky);
    ImGui::SliderFloat("leaky alpha", &params_.leaky_alpha, 0.0f, 0.5f, "%.3f");
    ImGui::EndDisabled();
    hover_tip("Slope of leaky ReLU below zero (only used by leaky ReLU).");

    // [SECTION] input
    ImGui::Spacing();
    int source = use_file_ ? 1 : 0;
    ImGui::RadioButton("generated", &source, 0);
    hover_tip("A smooth, feature-map-like pattern with values in about [-3, 3], of the size below.");
    ImGui::SameLine();
    ImGui::RadioButton("picture file", &source, 1);
    hover_tip("A PNG or JPG, converted to grey and recentred to [-1, 1]. Drop one on the window, or type a path.");
    use_file_ = source == 1;
    if (!use_file_) {
        // AlwaysClamp: a value typed with Ctrl+click stays in range too (it becomes a shift count).
        ImGui::SliderInt("size", &log2_elements_, 10, 26, "2^%d elements", ImGuiSliderFlags_AlwaysClamp);
        hover_tip("Number of elements, in powers of two from 2^10 (4 KiB) to 2^26 (256 MiB). Small sizes show "
                  "fixed costs (launch, copies); large sizes show memory bandwidth.");
        const int64_t n = int64_t{1} << log2_elements_;
        ImGui::TextColored(kMutedColour, "%s floats = %s in + %s out", core::format_count(n).c_str(),
                           core::format_bytes(static_cast<double>(n) * 4).c_str(),
                           core::format_bytes(static_cast<double>(n) * 4).c_str());
    } else {
        ImGui::InputTextWithHint("##path", "path to a .png or .jpg", path_buf_, sizeof path_buf_);
        hover_tip("Path of a picture; or drag and drop a file onto the window.");
        ImGui::SameLine();
        if (ImGui::Button("Load", {label_w - ImGui::GetStyle().ItemSpacing.x, 0})) {
            if (try_load_image(path_buf_)) start_run(false);
        }
        hover_tip("Read the picture now; an unreadable file leaves the previous input in place.");
        if (!loaded_image_.empty())
            ImGui::TextColored(kMutedColour, "in use: %s %s", loaded_image_.c_str(), loaded_image_shape_.c_str());
        else
            ImGui::TextColored(kMutedColour, "no picture loaded yet");
    }
    ImGui::PopItemWidth();

    // [SECTION] run
    ImGui::Spacing();
    ImGui::Separator();
    const float bw = ImGui::GetFontSize() * 6.0f;
    // BeginDisabled(flag) always pairs with EndDisabled(): the click below can change busy().
    ImGui::BeginDisabled(jobs_.busy());
    if (ImGui::Button("Run (R)", {bw, 0})) request_run();
    ImGui::EndDisabled();
    hover_tip("Measure every backend: warm-up, then at least 10 timed runs; medians with min-max, checked "
              "against cpu-scalar.");
    ImGui::SameLine();
    ImGui::Checkbox("live", &live_);
    hover_tip("Re-run continuously with a short configuration to feed the rolling plots. Copy limits come from "
              "the last full run.");
    if (jobs_.busy()) {
        ImGui::SameLine();
        ImGui::BeginDisabled(jobs_.cancelling());
        if (ImGui::Button("Cancel")) {
            jobs_.cancel();
            live_ = false;
        }
        ImGui::EndDisabled();
        hover_tip("Stop the measurement at its next checkpoint; the previous results stay.");
        const std::string stage = jobs_.label() + ": " + jobs_.stage();
        ImGui::ProgressBar(jobs_.progress(), {-1, 0}, stage.c_str());
    } else {
        ImGui::TextColored(kMutedColour, "%s", last_run_ ? "idle: results below are from the last run" : "idle");
    }
    if (!error_.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        ImGui::TextWrapped("%s", error_.c_str());
        ImGui::PopStyleColor();
    }
    if (!info_.empty()) ImGui::TextWrapped("%s", info_.c_str());

    // [SECTION] export and view
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::PushItemWidth(-label_w);
    ImGui::InputText("export folder", export_dir_buf_, sizeof export_dir_buf_);
    ImGui::PopItemWidth();
    hover_tip("Where Export writes the timing PNG (with a caption of this machine), the window PNG and the CSVs. "
              "Created if missing.");
    if (ImGui::Button("Export (F12)", {bw, 0})) request_export();
    hover_tip("Write <lesson>-timing.png, <lesson>-window.png, <lesson>-samples.csv and <lesson>-summary.csv.");
    if (exported_once_) {
        ImGui::PushStyleColor(ImGuiCol_Text, last_export_.ok ? kOkColour : kErrorColour);
        ImGui::TextWrapped("%s", last_export_.message.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::Spacing();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
    char preview[16];
    std::snprintf(preview, sizeof preview, "%.3gx", kUserScales[user_scale_index_]);
    if (ImGui::BeginCombo("UI scale", preview)) {
        for (int i = 0; i < static_cast<int>(IM_ARRAYSIZE(kUserScales)); ++i) {
            char label[16];
            std::snprintf(label, sizeof label, "%.3gx", kUserScales[i]);
            if (ImGui::Selectable(label, i == user_scale_index_)) user_scale_index_ = i;
        }
        ImGui::EndCombo();
    }
    hover_tip("Text and widget size, on top of the monitor's own scale. Fonts are re-rasterised at the new size.");
}

}  // namespace gpulab::app
