// The presenter's key map and step state machine: see presenter.h. Verified by
// tests/test_presenter.cpp (suite "presenter").
#include "presenter.h"

#include <algorithm>
#include <cctype>

namespace gpulab::core {

namespace {

int steps_of(const PresenterDeck& deck, int lesson) {
    if (lesson < 0 || lesson >= static_cast<int>(deck.steps_per_lesson.size())) return 0;
    return deck.steps_per_lesson[static_cast<std::size_t>(lesson)];
}

// Outside presenter mode the letters, digits, Space, Home and End belong to the ordinary UI
// (buttons, fields); only the keys the normal window always had, plus ? and F5, act.
bool acts_outside_presenter(PresenterKey key) {
    switch (key) {
        case PresenterKey::Right:
        case PresenterKey::Left:
        case PresenterKey::PageUp:
        case PresenterKey::PageDown:
        case PresenterKey::R:
        case PresenterKey::Question:
        case PresenterKey::F5:
        case PresenterKey::Escape:
        case PresenterKey::Up:    // the window turns the step text's pages
        case PresenterKey::Down:
        case PresenterKey::Plus:  // the window's UI scale
        case PresenterKey::Minus:
        case PresenterKey::F8:    // the palette
            return true;
        default:
            return false;
    }
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

}  // namespace

std::optional<PresenterAction> presenter_action(PresenterKey key) {
    switch (key) {
        case PresenterKey::Right:
        case PresenterKey::Space:
        case PresenterKey::PageDown: return PresenterAction::Next;
        case PresenterKey::Left:
        case PresenterKey::PageUp: return PresenterAction::Prev;
        case PresenterKey::Home: return PresenterAction::First;
        case PresenterKey::End: return PresenterAction::Last;
        case PresenterKey::R: return PresenterAction::Run;
        case PresenterKey::S: return PresenterAction::Stop;
        case PresenterKey::E: return PresenterAction::Export;
        case PresenterKey::B: return PresenterAction::Blank;
        case PresenterKey::Escape: return PresenterAction::Escape;
        case PresenterKey::Question: return PresenterAction::Help;
        case PresenterKey::F5: return PresenterAction::TogglePresent;
        case PresenterKey::Plus: return PresenterAction::ScaleUp;
        case PresenterKey::Minus: return PresenterAction::ScaleDown;
        case PresenterKey::M: return PresenterAction::ReducedMotion;
        case PresenterKey::N: return PresenterAction::Notes;
        case PresenterKey::P: return PresenterAction::Pointer;
        case PresenterKey::Z: return PresenterAction::Zoom;
        case PresenterKey::Up: return PresenterAction::ScrollUp;
        case PresenterKey::Down: return PresenterAction::ScrollDown;
        case PresenterKey::F8: return PresenterAction::Palette;
        default: break;
    }
    if (presenter_digit(key) >= 0) return PresenterAction::Lesson;
    return std::nullopt;
}

int presenter_digit(PresenterKey key) {
    const int k = static_cast<int>(key), first = static_cast<int>(PresenterKey::Digit1);
    const int last = static_cast<int>(PresenterKey::Digit9);
    return k >= first && k <= last ? k - first : -1;
}

PresenterEffects enter_presenter(PresenterState& state) {
    PresenterEffects fx;
    fx.consumed = true;
    if (state.presenting) return fx;
    state.presenting = true;
    state.theme = Theme::Presenter;
    state.blanked = false;
    state.help_shown = false;
    fx.entered_presenter = true;
    return fx;
}

PresenterEffects leave_presenter(PresenterState& state) {
    PresenterEffects fx;
    fx.consumed = true;
    if (!state.presenting) return fx;
    state.presenting = false;
    state.theme = Theme::Normal;
    state.blanked = false;
    state.help_shown = false;
    fx.left_presenter = true;
    return fx;
}

PresenterEffects apply_presenter_key(PresenterState& state, const PresenterInput& input, const PresenterDeck& deck) {
    PresenterEffects fx;
    if (state.blanked) {
        // Waking the screen must not also advance it: the key only unblanks.
        if (input.repeat) return fx;
        state.blanked = false;
        fx.consumed = true;
        return fx;
    }
    const std::optional<PresenterAction> action = presenter_action(input.key);
    if (!action) return fx;
    if (!state.presenting && !acts_outside_presenter(input.key)) return fx;
    // Holding a key repeats steps (and the scale); a held R or E must not queue runs or exports.
    if (input.repeat && *action != PresenterAction::Next && *action != PresenterAction::Prev &&
        *action != PresenterAction::ScrollUp && *action != PresenterAction::ScrollDown)
        return fx;

    const int steps = steps_of(deck, state.lesson);
    auto go_to = [&](int step) {
        fx.consumed = true;
        if (steps <= 0) return;
        step = std::clamp(step, 0, steps - 1);
        if (step != state.step) {
            state.step = step;
            fx.step_changed = true;
        }
    };
    switch (*action) {
        case PresenterAction::Next:
            if (steps > 0 && state.step + 1 >= steps)
                fx.message = "last step of this lesson; keys 1-9 open another lesson";
            go_to(state.step + 1);
            break;
        case PresenterAction::Prev:
            if (state.step <= 0) fx.message = "first step of this lesson";
            go_to(state.step - 1);
            break;
        case PresenterAction::First: go_to(0); break;
        case PresenterAction::Last: go_to(steps - 1); break;
        case PresenterAction::Lesson: {
            fx.consumed = true;
            const int n = presenter_digit(input.key);
            const int count = static_cast<int>(deck.steps_per_lesson.size());
            if (n >= count) {
                fx.message = "there is no lesson " + std::to_string(n + 1) + " (" + std::to_string(count) +
                             " in the list)";
            } else if (steps_of(deck, n) <= 0) {
                fx.message = "lesson " + std::to_string(n + 1) + " cannot be shown in this version";
            } else if (n != state.lesson) {
                state.lesson = n;
                state.step = 0;
                fx.lesson_changed = true;
                fx.step_changed = true;
            }
            break;
        }
        case PresenterAction::Run:
            fx.consumed = true;
            fx.run = true;
            break;
        case PresenterAction::Stop:
            fx.consumed = true;
            fx.stop = true;
            break;
        case PresenterAction::Export:
            fx.consumed = true;
            fx.export_files = true;
            break;
        case PresenterAction::Blank:
            fx.consumed = true;
            state.blanked = true;
            break;
        case PresenterAction::Help:
            fx.consumed = true;
            state.help_shown = !state.help_shown;
            break;
        case PresenterAction::Escape:
            if (state.help_shown) {
                fx.consumed = true;
                state.help_shown = false;
            } else if (state.presenting) {
                fx = leave_presenter(state);
            }
            break;
        case PresenterAction::TogglePresent:
            fx = state.presenting ? leave_presenter(state) : enter_presenter(state);
            break;
        case PresenterAction::ScaleUp:
        case PresenterAction::ScaleDown: {
            fx.consumed = true;
            if (!state.presenting) {
                fx.window_scale_step = *action == PresenterAction::ScaleUp ? 1 : -1;
                break;
            }
            const int next = std::clamp(state.scale_index + (*action == PresenterAction::ScaleUp ? 1 : -1), 0,
                                        kPresenterScaleCount - 1);
            fx.scale_changed = next != state.scale_index;
            state.scale_index = next;
            break;
        }
        case PresenterAction::Palette:
            fx.consumed = true;
            fx.toggle_palette = true;
            break;
        case PresenterAction::ReducedMotion:
            fx.consumed = true;
            state.reduced_motion = !state.reduced_motion;
            fx.message = state.reduced_motion ? "reduced motion: animations show a still frame" : "animations on";
            break;
        case PresenterAction::Notes:
            fx.consumed = true;
            state.notes_shown = !state.notes_shown;
            fx.message = state.notes_shown ? "speaker notes shown under the step text" : "speaker notes hidden";
            break;
        case PresenterAction::Pointer:
            fx.consumed = true;
            state.pointer_shown = !state.pointer_shown;
            fx.message = state.pointer_shown ? "pointer: a spotlight follows the mouse" : "pointer off";
            break;
        case PresenterAction::Zoom:
            fx.consumed = true;
            state.canvas_zoomed = !state.canvas_zoomed;
            fx.message = state.canvas_zoomed ? "the canvas alone (Z: back to the step text and plots)" : "";
            break;
        case PresenterAction::ScrollUp:
        case PresenterAction::ScrollDown:
            fx.consumed = true;
            fx.scroll_lines = *action == PresenterAction::ScrollUp ? -3 : 3;
            break;
    }
    return fx;
}

float fitting_presenter_scale(int scale_index, float width_px, float height_px, float font_px_at_1x) {
    const int wanted = std::clamp(scale_index, 0, kPresenterScaleCount - 1);
    if (width_px <= 0.0f || height_px <= 0.0f || font_px_at_1x <= 0.0f) return kPresenterScales[wanted];
    float best = kPresenterScales[0];
    for (int i = 1; i <= wanted; ++i) {
        const float font = font_px_at_1x * kPresenterScales[i];
        if (height_px / font >= kMinPresenterLines && width_px / font >= kMinPresenterColumns) best = kPresenterScales[i];
    }
    return best;
}

std::optional<PresenterKey> parse_presenter_key(std::string_view name) {
    struct Entry {
        const char* name;
        PresenterKey key;
    };
    static const Entry kNames[] = {
        {"right", PresenterKey::Right},   {"left", PresenterKey::Left},       {"space", PresenterKey::Space},
        {"pageup", PresenterKey::PageUp}, {"pagedown", PresenterKey::PageDown}, {"home", PresenterKey::Home},
        {"end", PresenterKey::End},       {"r", PresenterKey::R},             {"e", PresenterKey::E},
        {"b", PresenterKey::B},           {"escape", PresenterKey::Escape},   {"esc", PresenterKey::Escape},
        {"?", PresenterKey::Question},    {"f5", PresenterKey::F5},           {"+", PresenterKey::Plus},
        {"-", PresenterKey::Minus},       {"m", PresenterKey::M},
        {"n", PresenterKey::N},           {"s", PresenterKey::S},             {"p", PresenterKey::P},
        {"z", PresenterKey::Z},           {"up", PresenterKey::Up},           {"down", PresenterKey::Down},
        {"f8", PresenterKey::F8},
    };
    const std::string n = lower(trim(name));
    if (n.size() == 1 && n[0] >= '1' && n[0] <= '9')
        return static_cast<PresenterKey>(static_cast<int>(PresenterKey::Digit1) + (n[0] - '1'));
    for (const Entry& e : kNames)
        if (n == e.name) return e.key;
    return std::nullopt;
}

bool parse_presenter_keys(std::string_view list, std::vector<PresenterKey>& keys, std::string& error) {
    keys.clear();
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view item = trim(list.substr(0, comma));
        if (!item.empty()) {
            const std::optional<PresenterKey> k = parse_presenter_key(item);
            if (!k) {
                error = "unknown key '" + std::string(item) +
                        "' (known: Right, Left, Space, PageUp, PageDown, Home, End, 1-9, R, E, B, Escape, ?, F5, +, -, M, N, "
                        "P, Z, Up, Down)";
                return false;
            }
            keys.push_back(*k);
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return true;
}

const std::vector<PresenterKeyHelp>& presenter_key_help() {
    static const std::vector<PresenterKeyHelp> kHelp = {
        {"Right, Space, Page Down", "next step (stays on the last step)"},
        {"Left, Page Up", "previous step"},
        {"Home / End", "first / last step"},
        {"1 - 9", "open lesson 1 - 9 of the list"},
        {"R", "run the measurement again"},
        {"S", "stop the running measurement (a long training run, the race)"},
        {"E", "export PNG + CSV of this step"},
        {"B", "blank the screen (any key wakes it)"},
        {"+ / -", "larger / smaller text (presenting: 1x - 3x; the window: 1x - 2x, remembered)"},
        {"F8", "colour-blind-safe palette on / off (remembered)"},
        {"M", "reduced motion on / off"},
        {"N", "speaker notes on / off (under the step text)"},
        {"P", "pointer: a spotlight follows the mouse"},
        {"Z", "zoom: the canvas alone on the screen / back"},
        {"Up / Down", "the step text's next / earlier part (the canvas when zoomed: scroll it)"},
        {"?", "show / hide this key map"},
        {"Escape", "close this map, then leave presenter mode"},
        {"F5", "enter / leave presenter mode"},
        {"Tab / Shift+Tab", "the controls: next / previous one in the panel (the arrows move too)"},
        {"F6 / Shift+F6", "the controls: next / previous panel"},
        {"Space / Enter / Esc", "with a control in the ring: press it (a slider: the arrows then change it) / "
                                "hand the keys back to the steps"},
    };
    return kHelp;
}

}  // namespace gpulab::core
