// The presenter's state machine (core/lesson/presenter.h) without a window: every key's transition,
// the blank and help rules, the edges of a lesson and of the lesson list, repeats, and the
// --script-keys parser.
#include <doctest/doctest.h>

#include "lesson/presenter.h"

using namespace gpulab::core;

namespace {

// Three lessons: 5 steps, 3 steps, and one that cannot be shown (listed as coming).
const PresenterDeck kDeck{{5, 3, 0}};

PresenterState presenting_at(int lesson, int step) {
    PresenterState s;
    enter_presenter(s);
    s.lesson = lesson;
    s.step = step;
    return s;
}

PresenterEffects press(PresenterState& s, PresenterKey k, bool repeat = false) {
    return apply_presenter_key(s, {k, repeat}, kDeck);
}

}  // namespace

TEST_SUITE("presenter") {

TEST_CASE("key map matches the documented keys") {
    CHECK(presenter_action(PresenterKey::Right) == PresenterAction::Next);
    CHECK(presenter_action(PresenterKey::Space) == PresenterAction::Next);
    CHECK(presenter_action(PresenterKey::PageDown) == PresenterAction::Next);
    CHECK(presenter_action(PresenterKey::Left) == PresenterAction::Prev);
    CHECK(presenter_action(PresenterKey::PageUp) == PresenterAction::Prev);
    CHECK(presenter_action(PresenterKey::Home) == PresenterAction::First);
    CHECK(presenter_action(PresenterKey::End) == PresenterAction::Last);
    CHECK(presenter_action(PresenterKey::R) == PresenterAction::Run);
    CHECK(presenter_action(PresenterKey::E) == PresenterAction::Export);
    CHECK(presenter_action(PresenterKey::B) == PresenterAction::Blank);
    CHECK(presenter_action(PresenterKey::Escape) == PresenterAction::Escape);
    CHECK(presenter_action(PresenterKey::Question) == PresenterAction::Help);
    CHECK(presenter_action(PresenterKey::F5) == PresenterAction::TogglePresent);
    CHECK(presenter_action(PresenterKey::Digit1) == PresenterAction::Lesson);
    CHECK(presenter_action(PresenterKey::Digit9) == PresenterAction::Lesson);
    CHECK(presenter_digit(PresenterKey::Digit1) == 0);
    CHECK(presenter_digit(PresenterKey::Digit9) == 8);
    CHECK(presenter_digit(PresenterKey::R) == -1);
}

TEST_CASE("next and previous step within a lesson") {
    PresenterState s = presenting_at(0, 0);
    PresenterEffects fx = press(s, PresenterKey::Right);
    CHECK(fx.step_changed);
    CHECK(s.step == 1);
    press(s, PresenterKey::Space);
    press(s, PresenterKey::PageDown);
    CHECK(s.step == 3);
    fx = press(s, PresenterKey::Left);
    CHECK(fx.step_changed);
    CHECK(s.step == 2);
    press(s, PresenterKey::PageUp);
    CHECK(s.step == 1);
    CHECK_FALSE(fx.lesson_changed);
    CHECK(s.lesson == 0);
}

TEST_CASE("next on the last step stays and says so") {
    PresenterState s = presenting_at(0, 4);
    PresenterEffects fx = press(s, PresenterKey::Right);
    CHECK(fx.consumed);
    CHECK_FALSE(fx.step_changed);
    CHECK_FALSE(fx.lesson_changed);
    CHECK(s.step == 4);
    CHECK(s.lesson == 0);
    CHECK(fx.message.find("last step") != std::string::npos);
}

TEST_CASE("previous on the first step stays") {
    PresenterState s = presenting_at(1, 0);
    PresenterEffects fx = press(s, PresenterKey::PageUp);
    CHECK_FALSE(fx.step_changed);
    CHECK(s.step == 0);
    CHECK(fx.message.find("first step") != std::string::npos);
}

TEST_CASE("home and end jump to the first and last step") {
    PresenterState s = presenting_at(0, 2);
    CHECK(press(s, PresenterKey::End).step_changed);
    CHECK(s.step == 4);
    CHECK_FALSE(press(s, PresenterKey::End).step_changed);
    CHECK(press(s, PresenterKey::Home).step_changed);
    CHECK(s.step == 0);
}

TEST_CASE("digits open a lesson at its first step") {
    PresenterState s = presenting_at(0, 3);
    PresenterEffects fx = press(s, PresenterKey::Digit2);
    CHECK(fx.lesson_changed);
    CHECK(s.lesson == 1);
    CHECK(s.step == 0);
    fx = press(s, PresenterKey::Digit2);
    CHECK_FALSE(fx.lesson_changed);
}

TEST_CASE("digits for a missing or unavailable lesson change nothing") {
    PresenterState s = presenting_at(0, 2);
    PresenterEffects fx = press(s, PresenterKey::Digit9);
    CHECK(fx.consumed);
    CHECK_FALSE(fx.lesson_changed);
    CHECK(s.lesson == 0);
    CHECK(s.step == 2);
    CHECK(fx.message.find("no lesson 9") != std::string::npos);
    fx = press(s, PresenterKey::Digit3);
    CHECK_FALSE(fx.lesson_changed);
    CHECK(fx.message.find("cannot be shown") != std::string::npos);
}

TEST_CASE("run and export request side effects without moving") {
    PresenterState s = presenting_at(0, 1);
    PresenterEffects fx = press(s, PresenterKey::R);
    CHECK(fx.run);
    CHECK_FALSE(fx.export_files);
    fx = press(s, PresenterKey::E);
    CHECK(fx.export_files);
    CHECK_FALSE(fx.run);
    CHECK(s.step == 1);
}

TEST_CASE("S stops the running measurement in presenter mode only") {
    CHECK(presenter_action(PresenterKey::S) == PresenterAction::Stop);
    CHECK(parse_presenter_key("S") == PresenterKey::S);
    PresenterState s = presenting_at(0, 1);
    PresenterEffects fx = press(s, PresenterKey::S);
    CHECK(fx.consumed);
    CHECK(fx.stop);
    CHECK_FALSE(fx.run);
    CHECK(s.step == 1);
    CHECK_FALSE(press(s, PresenterKey::S, true).stop);  // held: one stop, not a queue of them
    s.presenting = false;  // outside presenter mode S belongs to text fields: the window's buttons stop runs
    fx = press(s, PresenterKey::S);
    CHECK_FALSE(fx.consumed);
    CHECK_FALSE(fx.stop);
}

TEST_CASE("held keys repeat steps but not one-shot commands") {
    PresenterState s = presenting_at(0, 0);
    CHECK(press(s, PresenterKey::Right, true).step_changed);
    CHECK_FALSE(press(s, PresenterKey::R, true).run);
    CHECK_FALSE(press(s, PresenterKey::E, true).export_files);
    press(s, PresenterKey::B, true);
    CHECK_FALSE(s.blanked);
}

TEST_CASE("blank toggles and any key only unblanks") {
    PresenterState s = presenting_at(0, 1);
    press(s, PresenterKey::B);
    CHECK(s.blanked);
    press(s, PresenterKey::B);
    CHECK_FALSE(s.blanked);
    press(s, PresenterKey::B);
    PresenterEffects fx = press(s, PresenterKey::Right);
    CHECK(fx.consumed);
    CHECK_FALSE(s.blanked);
    CHECK_FALSE(fx.step_changed);
    CHECK(s.step == 1);
    press(s, PresenterKey::B);
    fx = press(s, PresenterKey::R);
    CHECK_FALSE(fx.run);
    press(s, PresenterKey::B);
    fx = press(s, PresenterKey::Escape);
    CHECK_FALSE(s.blanked);
    CHECK(s.presenting);
}

TEST_CASE("help toggles and escape closes it before leaving") {
    PresenterState s = presenting_at(0, 0);
    press(s, PresenterKey::Question);
    CHECK(s.help_shown);
    press(s, PresenterKey::Question);
    CHECK_FALSE(s.help_shown);
    press(s, PresenterKey::Question);
    PresenterEffects fx = press(s, PresenterKey::Escape);
    CHECK_FALSE(s.help_shown);
    CHECK(s.presenting);
    CHECK_FALSE(fx.left_presenter);
    fx = press(s, PresenterKey::Escape);
    CHECK(fx.left_presenter);
    CHECK_FALSE(s.presenting);
    CHECK(s.theme == Theme::Normal);
}

TEST_CASE("F5 enters and leaves presenter mode") {
    PresenterState s;
    PresenterEffects fx = press(s, PresenterKey::F5);
    CHECK(fx.entered_presenter);
    CHECK(s.presenting);
    CHECK(s.theme == Theme::Presenter);
    press(s, PresenterKey::B);
    press(s, PresenterKey::Right);  // wakes the screen only
    fx = press(s, PresenterKey::F5);
    CHECK(fx.left_presenter);
    CHECK_FALSE(s.presenting);
}

TEST_CASE("leaving presenter mode clears blank and help") {
    PresenterState s = presenting_at(0, 0);
    s.help_shown = true;
    s.blanked = true;
    PresenterEffects fx = leave_presenter(s);
    CHECK(fx.left_presenter);
    CHECK_FALSE(s.help_shown);
    CHECK_FALSE(s.blanked);
    CHECK_FALSE(leave_presenter(s).left_presenter);
}

TEST_CASE("outside presenter mode letters and digits are left to the UI") {
    PresenterState s;
    CHECK_FALSE(press(s, PresenterKey::B).consumed);
    CHECK_FALSE(s.blanked);
    CHECK_FALSE(press(s, PresenterKey::Digit2).consumed);
    CHECK(s.lesson == 0);
    CHECK_FALSE(press(s, PresenterKey::Space).consumed);
    CHECK_FALSE(press(s, PresenterKey::E).export_files);
    CHECK_FALSE(press(s, PresenterKey::Escape).consumed);
    CHECK(press(s, PresenterKey::Right).step_changed);
    CHECK(press(s, PresenterKey::R).run);
    press(s, PresenterKey::Question);
    CHECK(s.help_shown);
}

TEST_CASE("scale presets clamp at 1x and 3x") {
    PresenterState s = presenting_at(0, 0);
    CHECK(kPresenterScales[s.scale_index] == 1.5f);
    CHECK(press(s, PresenterKey::Plus).scale_changed);
    CHECK(press(s, PresenterKey::Plus).scale_changed);
    CHECK(kPresenterScales[s.scale_index] == 3.0f);
    CHECK_FALSE(press(s, PresenterKey::Plus).scale_changed);
    for (int i = 0; i < 5; ++i) press(s, PresenterKey::Minus);
    CHECK(kPresenterScales[s.scale_index] == 1.0f);
}

TEST_CASE("reduced motion toggles") {
    PresenterState s = presenting_at(0, 0);
    press(s, PresenterKey::M);
    CHECK(s.reduced_motion);
    press(s, PresenterKey::M);
    CHECK_FALSE(s.reduced_motion);
}

TEST_CASE("a preset too large for the screen is lowered to the largest that fits") {
    constexpr float kFont = 16.0f;  // app/widgets/fonts.h kBaseFontPixels
    CHECK(fitting_presenter_scale(3, 3840.0f, 2160.0f, kFont) == 3.0f);  // 4K projector: 3x fits
    CHECK(fitting_presenter_scale(3, 2560.0f, 1440.0f, kFont) == 2.0f);  // 1440p: 2x
    CHECK(fitting_presenter_scale(3, 1920.0f, 1080.0f, kFont) == 1.5f);  // 1080p: 2x would leave 34 lines
    CHECK(fitting_presenter_scale(2, 1920.0f, 1080.0f, kFont) == 1.5f);
    CHECK(fitting_presenter_scale(0, 1920.0f, 1080.0f, kFont) == 1.0f);  // never raised above the preset
    CHECK(fitting_presenter_scale(1, 1600.0f, 900.0f, kFont) == 1.0f);   // 1.5x would leave 37 lines
    CHECK(fitting_presenter_scale(1, 1280.0f, 720.0f, kFont) == 1.0f);
    CHECK(fitting_presenter_scale(2, 2560.0f, 1080.0f, kFont) == 1.5f);  // an ultra-wide is as tall as 1080p
    CHECK(fitting_presenter_scale(3, 1440.0f, 2560.0f, kFont) == 1.0f);  // a portrait screen: too narrow for 1.5x
    CHECK(fitting_presenter_scale(3, 300.0f, 300.0f, kFont) == 1.0f);    // tiny: the smallest preset, not less
    CHECK(fitting_presenter_scale(2, 0.0f, 0.0f, kFont) == 2.0f);        // no screen size yet: as asked
    CHECK(fitting_presenter_scale(1, 1920.0f, 1080.0f, 32.0f) == 1.0f);  // HiDPI fonts count double
}

TEST_CASE("N toggles the speaker notes in presenter mode only") {
    PresenterState s = presenting_at(0, 0);
    CHECK_FALSE(s.notes_shown);
    PresenterEffects fx = press(s, PresenterKey::N);
    CHECK(fx.consumed);
    CHECK(s.notes_shown);
    CHECK(fx.message.find("speaker notes") != std::string::npos);
    press(s, PresenterKey::N);
    CHECK_FALSE(s.notes_shown);
    CHECK(parse_presenter_key("n") == PresenterKey::N);

    PresenterState window;  // the normal window: N is left to the controls
    CHECK_FALSE(press(window, PresenterKey::N).consumed);
    CHECK_FALSE(window.notes_shown);
}

TEST_CASE("a lesson with no steps ignores stepping") {
    PresenterState s = presenting_at(2, 0);
    PresenterEffects fx = press(s, PresenterKey::Right);
    CHECK_FALSE(fx.step_changed);
    CHECK(s.step == 0);
    fx = press(s, PresenterKey::End);
    CHECK_FALSE(fx.step_changed);
}

TEST_CASE("script key names parse and unknown names are reported") {
    std::vector<PresenterKey> keys;
    std::string error;
    REQUIRE(parse_presenter_keys("Right, right,B,b,Escape,PageDown,3,?,F5", keys, error));
    REQUIRE(keys.size() == 9);
    CHECK(keys[0] == PresenterKey::Right);
    CHECK(keys[1] == PresenterKey::Right);
    CHECK(keys[3] == PresenterKey::B);
    CHECK(keys[4] == PresenterKey::Escape);
    CHECK(keys[5] == PresenterKey::PageDown);
    CHECK(keys[6] == PresenterKey::Digit3);
    CHECK(keys[7] == PresenterKey::Question);
    CHECK(keys[8] == PresenterKey::F5);
    CHECK_FALSE(parse_presenter_keys("Right,Jump", keys, error));
    CHECK(error.find("'Jump'") != std::string::npos);
    CHECK(parse_presenter_keys("", keys, error));
    CHECK(keys.empty());
}

TEST_CASE("the key map lists every action") {
    const auto& help = presenter_key_help();
    CHECK(help.size() >= 10);
    bool has_blank = false;
    for (const auto& row : help) has_blank = has_blank || std::string(row.keys) == "B";
    CHECK(has_blank);
}

}  // TEST_SUITE

TEST_CASE("P and Z in presenter mode only - Up / Down scroll there and turn the step text's pages in the window") {
    PresenterState s = presenting_at(0, 0);
    PresenterEffects fx = press(s, PresenterKey::P);
    CHECK(fx.consumed);
    CHECK(s.pointer_shown);
    CHECK(fx.message.find("spotlight") != std::string::npos);
    press(s, PresenterKey::P);
    CHECK_FALSE(s.pointer_shown);
    fx = press(s, PresenterKey::Z);
    CHECK(s.canvas_zoomed);
    CHECK_FALSE(fx.step_changed);
    press(s, PresenterKey::Z);
    CHECK_FALSE(s.canvas_zoomed);
    CHECK(press(s, PresenterKey::Down).scroll_lines == 3);
    CHECK(press(s, PresenterKey::Up).scroll_lines == -3);
    // Held, the arrows keep scrolling, as the step keys keep stepping.
    CHECK(press(s, PresenterKey::Down, true).scroll_lines == 3);
    CHECK(parse_presenter_key("p") == PresenterKey::P);
    CHECK(parse_presenter_key("Z") == PresenterKey::Z);
    CHECK(parse_presenter_key("down") == PresenterKey::Down);

    PresenterState window;  // the normal window: P and Z do nothing, the arrows page the step text
    CHECK_FALSE(press(window, PresenterKey::P).consumed);
    fx = press(window, PresenterKey::Down);
    CHECK(fx.consumed);
    CHECK(fx.scroll_lines > 0);
    CHECK(press(window, PresenterKey::Up).scroll_lines < 0);
    CHECK_FALSE(fx.step_changed);
    CHECK_FALSE(window.pointer_shown);
}
