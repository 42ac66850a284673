// The elementwise-activations controls: activation, size (powers of two, with the count and
// bytes), leaky alpha, the input (generated or a picture file), Run / live / Cancel with progress.
// Every control has a tooltip; errors show in red (drawn by the shell) and never end the program.
#include <string>

#include "activation_view.h"
#include "measure/format.h"
#include "views/run_row.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void ActivationView::draw_controls() {
    const float label_w = ImGui::GetFontSize() * 7.0f;
    ImGui::PushItemWidth(-label_w);

    // [SECTION] op
    draw_activation_combo(params_.activation,
                          "The function applied to every element. ReLU is one comparison; sigmoid, tanh and GELU "
                          "need an exponential, yet all of them move the same bytes.");

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
    ImGui::BeginDisabled(host_.jobs->busy());
    if (ImGui::Button("Run (R)", {bw, 0})) request_run();
    ImGui::EndDisabled();
    hover_tip("Measure every backend: warm-up, then at least 10 timed runs; medians with min-max, checked "
              "against cpu-scalar.");
    ImGui::SameLine();
    ImGui::Checkbox("live", &live_);
    hover_tip("Re-run continuously with a short configuration to feed the rolling plots. Copy limits come from "
              "the last full run.");
    if (host_.jobs->busy()) {
        ImGui::SameLine();
        ImGui::BeginDisabled(host_.jobs->cancelling());
        if (ImGui::Button("Cancel")) {
            host_.jobs->cancel();
            live_ = false;
        }
        ImGui::EndDisabled();
        hover_tip("Stop the measurement at its next checkpoint; the previous results stay.");
        const std::string stage = host_.jobs->label() + ": " + host_.jobs->stage();
        ImGui::ProgressBar(host_.jobs->progress(), {-1, 0}, stage.c_str());
    } else {
        ImGui::TextColored(kMutedColour, "%s", last_run_ ? "idle: results below are from the last run" : "idle");
        draw_busy_machine_warning(*host_.jobs);
    }
}

}  // namespace gpulab::app
