// The main menu bar: export, UI scale (fonts are rebuilt at the new size by the GUI loop) and
// fullscreen. Checked in the GUI screenshot.
#include <cstdio>

#include "shell.h"
#include "ui_helpers.h"

namespace gpulab::app {

void Shell::draw_menu_bar(const FrameContext& ctx) {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Run measurement", "R", false, !jobs_.busy())) request_run();
        if (ImGui::MenuItem("Export PNG + CSV", "F12")) request_export();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (int i = 0; i < static_cast<int>(IM_ARRAYSIZE(kUserScales)); ++i) {
            char label[32];
            std::snprintf(label, sizeof label, "UI scale %.3gx", kUserScales[i]);
            if (ImGui::MenuItem(label, nullptr, user_scale_index_ == i)) user_scale_index_ = i;
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Fullscreen", "F11", ctx.fullscreen, !ctx.headless)) fullscreen_toggle_ = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Lesson")) {
        if (ImGui::MenuItem("Previous step", "Left / PageUp", false, step_index_ > 0)) prev_step();
        if (ImGui::MenuItem("Next step", "Right / PageDown")) next_step();
        ImGui::EndMenu();
    }
    ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize("gpulab 0.0.0: every number is measured live").x -
                    ImGui::GetStyle().ItemSpacing.x * 2);
    ImGui::TextColored(kMutedColour, "gpulab %s: every number is measured live", GPULAB_VERSION);
    ImGui::EndMainMenuBar();
}

}  // namespace gpulab::app
