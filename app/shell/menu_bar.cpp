// The main menu bar: export, comparison with another machine (popup in compare_popup.cpp), UI
// scale (fonts are rebuilt at the new size by the GUI loop), fullscreen, presenter mode with its
// text-size presets, the colour-blind-safe palette and reduced motion. Checked in the GUI screenshot.
#include <cstdio>

#include "widgets/presenter_palette.h"
#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void Shell::draw_menu_bar(const FrameContext& ctx) {
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Run measurement", "R", false, !jobs_.busy())) request_run();
        if (ImGui::MenuItem("Export PNG + CSV", "F12")) request_export();
        if (ImGui::MenuItem("Compare with another machine...")) compare_popup_requested_ = true;
        hover_tip("Show another machine's export of this lesson (its CSV) beside this machine's numbers, both "
                  "machines named.");
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        for (int i = 0; i < static_cast<int>(IM_ARRAYSIZE(kUserScales)); ++i) {
            char label[32];
            std::snprintf(label, sizeof label, "UI scale %.3gx", kUserScales[i]);
            if (ImGui::MenuItem(label, i == 0 ? "+ / -" : nullptr, user_scale_index_ == i)) user_scale_index_ = i;
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Fullscreen", "F11", ctx.fullscreen, !ctx.headless)) fullscreen_toggle_ = true;
        ImGui::Separator();
        if (ImGui::MenuItem("Presenter mode", "F5", presenter_.presenting)) set_presenting(!presenter_.presenting);
        if (ImGui::BeginMenu("Presenter text size")) {
            for (int i = 0; i < core::kPresenterScaleCount; ++i) {
                char label[32];
                std::snprintf(label, sizeof label, "%.3gx", core::kPresenterScales[i]);
                if (ImGui::MenuItem(label, nullptr, presenter_.scale_index == i)) set_presenter_scale_index(i);
            }
            ImGui::EndMenu();
        }
        bool cb = colour_blind_palette();
        if (ImGui::MenuItem("Colour-blind-safe palette", "F8", &cb)) set_colour_blind_palette(cb);
        hover_tip("Okabe-Ito colours for the backends; every bar and line keeps its text label as well.");
        ImGui::MenuItem("Reduced motion", "M in presenter mode", &presenter_.reduced_motion);
        hover_tip("Animations hold one still frame instead of moving.");
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Lessons")) {
        // The list the Lessons tab shows too; 1-9 open them in presenter mode.
        int shown = 0;
        for (std::size_t i = 0; i < catalog_.lessons.size(); ++i) {
            const core::Lesson& l = catalog_.lessons[i];
            char key[8] = "";
            if (!l.coming && ++shown <= 9) std::snprintf(key, sizeof key, "%d", shown);
            if (ImGui::MenuItem(l.title.c_str(), key, static_cast<int>(i) == lesson_index_, !l.coming))
                select_lesson(static_cast<int>(i));
            hover_tip(l.summary.c_str());
        }
        if (!catalog_.errors.empty()) {
            ImGui::Separator();
            ImGui::TextColored(kErrorColour, "%d lesson file problem(s): see the Lessons tab",
                               static_cast<int>(catalog_.errors.size()));
        }
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Lesson")) {
        if (ImGui::MenuItem("Previous step", "Left / PageUp", false, step_index_ > 0)) prev_step();
        if (ImGui::MenuItem("Next step", "Right / PageDown")) next_step();
        ImGui::Separator();
        if (every_step_.active) {
            if (ImGui::MenuItem("Stop measuring every step")) request_stop();
        } else if (ImGui::MenuItem("Measure every step now", nullptr, false, !jobs_.busy() && view_)) {
            start_measuring_every_step();
        }
        hover_tip("Before class: every step of this lesson measures now, one after another, so that in class "
                  "each shows its results at once, also after gpulab is started again (the results are kept in "
                  "gpulab's cache folder; `gpulab prerun` does every lesson from a terminal).");
        ImGui::Separator();
        if (ImGui::MenuItem("Key map", "?", presenter_.help_shown)) presenter_.help_shown = !presenter_.help_shown;
        ImGui::EndMenu();
    }
    ImGui::SameLine(ImGui::GetWindowWidth() -
                    ImGui::CalcTextSize("gpulab 0.0.0: timings measured live; examples say so").x -
                    ImGui::GetStyle().ItemSpacing.x * 2);
    ImGui::TextColored(kMutedColour, "gpulab %s: timings measured live; examples say so", GPULAB_VERSION);
    hover_tip("Every time, rate and speed-up of a run on screen is measured on this machine. Every other "
              "figure says what it is where it appears: the source article's (its timings), a published "
              "specification (an example GPU where there is none), arithmetic (FLOP counts, theoretical "
              "factors, blocks and waves) or an estimate.");
    ImGui::EndMainMenuBar();
    draw_compare_popup();
}

}  // namespace gpulab::app
