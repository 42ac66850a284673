// The Controls window: the lesson view's own controls (activation_controls.cpp,
// latency_controls.cpp), then the red error and grey info lines, and the Export button with its
// folder. Every control has a tooltip.
#include <cstdio>
#include <string>

#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void Shell::draw_controls(const FrameContext&) {
    const float bw = ImGui::GetFontSize() * 6.0f;
    if (view_) view_->draw_controls();
    if (!host_.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        ImGui::TextWrapped("%s", host_.error.c_str());
        ImGui::PopStyleColor();
    }
    if (!host_.info.empty()) ImGui::TextWrapped("%s", host_.info.c_str());

    // [SECTION] export: the button and its folder on one line (the UI scale is in the View menu)
    ImGui::Spacing();
    ImGui::Separator();
    if (ImGui::Button("Export (F12)", {bw, 0})) request_export();
    if (view_) hover_tip(view_->export_description().c_str());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::InputTextWithHint("##export_folder", "export folder", export_dir_buf_, sizeof export_dir_buf_);
    hover_tip("The export folder: where Export writes the timing PNG (with a caption of this machine), the window PNG "
              "and the CSVs. Created if missing.");
    if (exported_once_) {
        // While the files are written in the background the line says so in the accent colour;
        // then it turns into the result, green with the folder or red with what failed.
        ImGui::PushStyleColor(ImGuiCol_Text,
                              exporting() ? kAccentColour : last_export_.ok ? kOkColour : kErrorColour);
        ImGui::TextWrapped("%s", last_export_.message.c_str());
        ImGui::PopStyleColor();
        if (!export_note_.empty()) ImGui::TextWrapped("%s", export_note_.c_str());
    }
}

}  // namespace gpulab::app
