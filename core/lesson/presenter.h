// The presenter's key map and step state machine, with no window, GL or ImGui: what each key does
// to {lesson, step, blanked, help, presenting, reduced motion, theme, scale} and which side effects
// (run, export, enter or leave presenter mode) the app must carry out. The GUI maps its keyboard
// (GLFW codes) onto PresenterKey and applies the returned effects; tests/test_presenter.cpp
// checks every key and the edge cases without a window.
//
// Decisions an instructor can rely on:
// - Next on the last step stays there: a lesson never ends by surprise in front of a room. The
//   digit keys 1-9 switch lessons on purpose.
// - While the screen is blanked, any key only unblanks; it does not also step, run or export, so
//   waking the projector with the clicker never skips a slide.
// - Escape closes the key-map overlay first, then unblanks, then leaves presenter mode.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::core {

// Physical keys the presenter understands (the app translates its own key codes into these).
enum class PresenterKey {
    Right, Left, Space, PageUp, PageDown, Home, End,
    Digit1, Digit2, Digit3, Digit4, Digit5, Digit6, Digit7, Digit8, Digit9,
    R, E, B, Escape, Question, F5, Plus, Minus, M, N, S, P, Z, Up, Down, F8,
};

// What a key means.
enum class PresenterAction {
    Next, Prev, First, Last, Lesson, Run, Export, Blank, Escape, Help, TogglePresent, ScaleUp, ScaleDown,
    ReducedMotion, Notes, Stop, Pointer, Zoom, ScrollUp, ScrollDown, Palette,
};

enum class Theme { Normal, Presenter };

// Presenter-mode font scales: re-rasterised fonts, never a stretched bitmap.
inline constexpr float kPresenterScales[] = {1.0f, 1.5f, 2.0f, 3.0f};
inline constexpr int kPresenterScaleCount = 4;

// The presenter layout (step text, a canvas of labelled pictures, a plot) needs about this many
// lines of text height and this many font sizes of width. Every preset was checked against them
// with `export --check-layout`: at 45 x 80 (1x on 1366x768 has 48 x 85; 1.5x on 1080p, 2x on
// 1440p and 3x on 2160p have 45 x 80) no panel is cut; 2x on 1080p (34 lines) and 1.5x on
// 1600x900 (37 lines, 67 wide) cut the timing tables and scrolled the canvases.
inline constexpr float kMinPresenterLines = 44.0f;
inline constexpr float kMinPresenterColumns = 78.0f;

// The scale presenter mode really uses: the preset asked for, lowered to the largest preset that
// still leaves kMinPresenterLines lines and kMinPresenterColumns font sizes of `font_px_at_1x`
// pixels on a screen `width_px` x `height_px` (1080p: up to 1.5x; 1440p: 2x; 2160p: 3x; 768: 1x).
// Never below the smallest preset.
float fitting_presenter_scale(int scale_index, float width_px, float height_px, float font_px_at_1x);

struct PresenterState {
    int lesson = 0;  // index into the lesson list
    int step = 0;    // index into that lesson's steps
    bool blanked = false;
    bool help_shown = false;
    bool presenting = false;
    bool reduced_motion = false;
    bool notes_shown = false;  // the step's speaker notes under its text; off: the room reads the screen
    bool pointer_shown = false;  // a spotlight around the mouse, for pointing at the projector
    bool canvas_zoomed = false;  // the canvas alone on the whole screen under the header
    Theme theme = Theme::Normal;
    int scale_index = 1;  // into kPresenterScales: 1.5x by default
};

// The lessons as the state machine needs them: steps per lesson, 0 for a lesson that cannot be
// opened (listed as coming, or its view is not built).
struct PresenterDeck {
    std::vector<int> steps_per_lesson;
};

struct PresenterEffects {
    bool consumed = false;       // the key did something (or was deliberately swallowed)
    bool lesson_changed = false;
    bool step_changed = false;
    bool run = false;
    bool stop = false;            // stop the running measurement (the Stop / Cancel button)
    bool export_files = false;
    bool entered_presenter = false;
    bool left_presenter = false;
    bool scale_changed = false;
    int scroll_lines = 0;         // scroll the step text (the canvas when zoomed) by this many lines
    int window_scale_step = 0;    // + / - outside presenter mode: the window's UI scale one preset up or down
    bool toggle_palette = false;  // F8, in both modes: the colour-blind-safe palette on or off
    std::string message;         // one line for the status bar, e.g. "lesson 7 does not exist"
};

struct PresenterInput {
    PresenterKey key;
    bool repeat = false;  // held down: stepping repeats, one-shot commands do not
};

std::optional<PresenterAction> presenter_action(PresenterKey key);
// Digit1..Digit9 -> 0..8; -1 for any other key.
int presenter_digit(PresenterKey key);

// Applies one key press. Outside presenter mode only stepping, Run, Export, Help and F5 act, so
// the letters and digits stay free for the controls.
PresenterEffects apply_presenter_key(PresenterState& state, const PresenterInput& input, const PresenterDeck& deck);

// Explicit transitions the menus and the command line use.
PresenterEffects enter_presenter(PresenterState& state);
PresenterEffects leave_presenter(PresenterState& state);

// "Right", "PageDown", "Space", "Home", "End", "1".."9", "R", "E", "B", "Escape" (or "Esc"), "?",
// "F5", "+", "-", "M", "N"; case-insensitive. For the test option --script-keys.
std::optional<PresenterKey> parse_presenter_key(std::string_view name);
// Parses "Right,Right,B" into keys; false with `error` naming the first unknown key.
bool parse_presenter_keys(std::string_view list, std::vector<PresenterKey>& keys, std::string& error);

// The key map as rows of {keys, what they do}, for the `?` overlay and the documentation.
struct PresenterKeyHelp {
    const char* keys;
    const char* meaning;
};
const std::vector<PresenterKeyHelp>& presenter_key_help();

}  // namespace gpulab::core
