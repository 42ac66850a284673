// The Controls window: the lesson view's own controls (activation_controls.cpp,
// latency_controls.cpp), then the red error and grey info lines, the export folder with the
// Export button, and the UI scale. Every control has a tooltip.
#include <cstdio>
#include <string>

#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void Shell::draw_controls(const FrameContext&) {
    const float label_w = ImGui::GetFontSize() * 7.0f;
    const float bw = ImGui::GetFontSize() * 6.0f;
    if (view_) view_->draw_controls();
    if (!host_.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        ImGui::TextWrapped("%s", host_.error.c_str());
        ImGui::PopStyleColor();
    }
    if (!host_.info.empty()) ImGui::TextWrapped("%s", host_.info.c_str());

    // [SECTION] export and view
    ImGui::Spacing();
    ImGui::Separator();
    ImGui::PushItemWidth(-label_w);
    ImGui::InputText("export folder", export_dir_buf_, sizeof export_dir_buf_);
    ImGui::PopItemWidth();
    hover_tip("Where Export writes the timing PNG (with a caption of this machine), the window PNG and the CSVs. "
              "Created if missing.");
    if (ImGui::Button("Export (F12)", {bw, 0})) request_export();
    if (view_) hover_tip(view_->export_description().c_str());
    if (exported_once_) {
        // While the files are written in the background the line says so in the accent colour;
        // then it turns into the result, green with the folder or red with what failed.
        ImGui::PushStyleColor(ImGuiCol_Text,
                              exporting() ? kAccentColour : last_export_.ok ? kOkColour : kErrorColour);
        ImGui::TextWrapped("%s", last_export_.message.c_str());
        ImGui::PopStyleColor();
        if (!export_note_.empty()) ImGui::TextWrapped("%s", export_note_.c_str());
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
