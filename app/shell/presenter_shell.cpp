// The Shell's presenter-mode state: keys go through core/lesson/presenter.h's state machine, and its
// effects become the shell's ordinary commands (select a lesson, enter a step, run, export).
// Verified by tests/test_presenter.cpp (the state machine) and the presenter GUI test, which
// drives these functions with --script-keys and checks the printed summary.
#include <algorithm>
#include <cstdio>
#include <iterator>

#include "widgets/fonts.h"
#include "widgets/presenter_palette.h"
#include "measure/format.h"
#include "shell.h"

namespace gpulab::app {

int Shell::step_count() const {
    const core::Lesson* l = lesson();
    return l ? static_cast<int>(l->steps.size()) : 0;
}

const core::LessonStep* Shell::current_step() const {
    const core::Lesson* l = lesson();
    if (!l || step_index_ < 0 || step_index_ >= static_cast<int>(l->steps.size())) return nullptr;
    return &l->steps[static_cast<std::size_t>(step_index_)];
}

std::string Shell::lesson_title() const {
    const core::Lesson* l = lesson();
    return l ? l->title : "gpulab";
}

bool Shell::handle_presenter_key(core::PresenterKey key, bool repeat) {
    core::PresenterDeck deck;
    for (const core::Lesson& l : catalog_.lessons) {
        // A lesson counts as openable only when a view exists for its workload (view_for builds
        // it on first use), so the digit keys never land on a blank screen.
        const bool openable = !l.coming && view_for(l.workload) != nullptr;
        deck.steps_per_lesson.push_back(openable ? static_cast<int>(l.steps.size()) : 0);
    }
    presenter_.lesson = lesson_index_;
    presenter_.step = step_index_;
    const core::PresenterEffects fx = core::apply_presenter_key(presenter_, {key, repeat}, deck);
    if (fx.step_changed && !fx.lesson_changed)
        stop_measuring_every_step("you moved to another step");
    if (fx.lesson_changed) select_lesson(presenter_.lesson);
    else if (fx.step_changed) enter_step(presenter_.step);
    if (fx.run) request_run();
    if (fx.stop) request_stop();
    if (fx.export_files) request_export();
    // Up / Down: the canvas scrolls when it is alone on the slide; otherwise the step text turns a part.
    if (fx.scroll_lines != 0) {
        if (presenter_.presenting && presenter_.canvas_zoomed) pending_scroll_lines_ += fx.scroll_lines;
        else text_page_ += fx.scroll_lines > 0 ? 1 : -1;
    }
    if (fx.window_scale_step != 0)
        user_scale_index_ = std::clamp(user_scale_index_ + fx.window_scale_step, 0,
                                       static_cast<int>(std::size(kUserScales)) - 1);
    if (fx.toggle_palette) {
        set_colour_blind_palette(!colour_blind_palette());
        presenter_message_ = colour_blind_palette() ? "colour-blind-safe palette (F8: back to the usual colours)"
                                                    : "the usual colours (F8: colour-blind-safe palette)";
        presenter_message_age_ = 0.0f;
    }
    if (!fx.message.empty()) {
        presenter_message_ = fx.message;
        if (key == core::PresenterKey::N && presenter_view_open_)
            presenter_message_ = "the speaker notes are in the presenter view, not on the slide";
        presenter_message_age_ = 0.0f;
    }
    // Said, not hidden: the instructor asked for a size the screen cannot hold.
    if (fx.scale_changed || fx.entered_presenter) {
        const float wanted = core::kPresenterScales[presenter_.scale_index], used = presenter_scale();
        if (used < wanted) {
            char line[160];
            std::snprintf(line, sizeof line, "%gx does not fit a %.0f x %.0f screen: showing %gx", wanted,
                          ImGui::GetIO().DisplaySize.x, ImGui::GetIO().DisplaySize.y, used);
            presenter_message_ = line;
            presenter_message_age_ = 0.0f;
        }
    }
    return fx.consumed;
}

void Shell::set_presenting(bool on) {
    if (on) core::enter_presenter(presenter_);
    else core::leave_presenter(presenter_);
}

float Shell::presenter_scale() const {
    return core::fitting_presenter_scale(presenter_.scale_index, ImGui::GetIO().DisplaySize.x, ImGui::GetIO().DisplaySize.y,
                                         kBaseFontPixels * content_scale_);
}

void Shell::set_presenter_scale_index(int index) {
    presenter_.scale_index = std::clamp(index, 0, core::kPresenterScaleCount - 1);
}

std::string Shell::presenter_summary() const {
    auto yes_no = [](bool b) { return b ? "yes" : "no"; };
    return "lesson=" + (lesson_id().empty() ? std::string("none") : lesson_id()) + " step=" +
           std::to_string(step_index_ + 1) + " of " + std::to_string(step_count()) +
           " presenting=" + yes_no(presenter_.presenting) + " blanked=" + yes_no(presenter_.blanked) +
           " help=" + yes_no(presenter_.help_shown) + " runs=" + std::to_string(jobs_.submitted()) +
           " text_part=" + std::to_string(text_page_ + 1) + " of " + std::to_string(text_pages_) +
           " palette=" + (colour_blind_palette() ? "colour-blind" : "normal") + " ui_scale=" +
           core::format_fixed(kUserScales[user_scale_index_], 2) + " keys=" +
           (keyboard_focus_.holds_keyboard() ? keyboard_focus_.focused_panel() : std::string("lesson"));
}

}  // namespace gpulab::app
