// Tab, F6, Space, Enter, the arrows and Escape for the controls: see keyboard_focus.h for why the
// keys go through ImGui's navigation by hand. The calls into imgui_internal.h are the ones ImGui
// 1.86 itself makes for its Tab key (a tabbing move request), with one flag more: FocusApi, which
// lets the request stop at every item instead of only at text fields.
#include "keyboard_focus.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpulab::app {

namespace {

// The panels F6 walks: the windows the shell lays out (never a child window, a popup or a tooltip),
// in the order a step is used: its text, the controls, the picture, the timings, the status bar. The
// menu bar stays with Alt and the mouse (its commands have keys of their own, listed in the key map).
int panel_rank(const std::string& name);
std::string panel_name(const ImGuiWindow* w);

std::vector<ImGuiWindow*> panels() {
    ImGuiContext& g = *GImGui;
    std::vector<ImGuiWindow*> out;
    for (ImGuiWindow* w : g.Windows) {
        if (!w->WasActive || w->Hidden) continue;
        if (w->Flags & (ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup |
                        ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoNavInputs))
            continue;
        if (w->Flags & ImGuiWindowFlags_MenuBar) continue;  // the main menu bar
        out.push_back(w);
    }
    std::stable_sort(out.begin(), out.end(), [](const ImGuiWindow* a, const ImGuiWindow* b) {
        const int ra = panel_rank(panel_name(a)), rb = panel_rank(panel_name(b));
        if (ra != rb) return ra < rb;
        if (std::round(a->Pos.x) != std::round(b->Pos.x)) return a->Pos.x < b->Pos.x;
        return a->Pos.y < b->Pos.y;
    });
    return out;
}

int panel_rank(const std::string& name) {
    static const char* const kOrder[] = {"Lesson", "Controls", "Canvas", "Timing", "Status"};
    const auto at = std::find(std::begin(kOrder), std::end(kOrder), name);
    return static_cast<int>(at - std::begin(kOrder));
}

// ImGui's tabbing request, for every item (FocusApi): +1 the item after the focused one, -1 the one
// before (both wrap inside the panel), 0 the panel's first item.
void submit_tabbing(int direction) {
    ImGuiContext& g = *GImGui;
    if (g.NavId == 0) direction = std::max(direction, 0);
    g.NavTabbingDir = direction;
    ImGui::NavMoveRequestSubmit(ImGuiDir_None, direction < 0 ? ImGuiDir_Up : ImGuiDir_Down,
                                ImGuiNavMoveFlags_Tabbing | ImGuiNavMoveFlags_FocusApi,
                                ImGuiScrollFlags_KeepVisibleEdgeX | ImGuiScrollFlags_KeepVisibleEdgeY);
    g.NavTabbingResultFirst.Clear();
    g.NavTabbingCounter = -1;
    ImGui::ClearActiveID();  // a slider being changed or a number being typed ends here
    // The highlight shows, and the mouse's hover does not take it back until the mouse moves.
    g.NavDisableHighlight = false;
    g.NavDisableMouseHover = true;
    g.NavInputSource = ImGuiInputSource_Keyboard;
}

// The kernel editor takes Tab as a character (it indents); every other text field hands it on.
bool field_keeps_tab() {
    const ImGuiInputTextState* state = ImGui::GetInputTextState(GImGui->ActiveId);
    return state && (state->Flags & ImGuiInputTextFlags_AllowTabInput);
}

bool is_panel(const ImGuiWindow* w, const std::vector<ImGuiWindow*>& list) {
    return w && std::find(list.begin(), list.end(), w->RootWindow) != list.end();
}

// "Canvas" from "Canvas", "Timing" from "What the kernel did###Timing", "Controls" from "##side_panels".
std::string panel_name(const ImGuiWindow* w) {
    std::string name = w->Name;
    if (const std::size_t hashes = name.find("###"); hashes != std::string::npos) name = name.substr(hashes + 3);
    name = name.substr(std::min(name.find_first_not_of('#'), name.size()));
    if (name == "side_panels" || name == "side") return "Controls";
    if (name == "LessonText" || name == "present_text") return "Lesson";
    if (name == "present_canvas") return "Canvas";
    if (name == "present_timing") return "Timing";
    if (name == "status") return "Status";
    return name;
}

}  // namespace

void KeyboardFocus::before_new_frame() {
    ImGuiIO& io = ImGui::GetIO();
    // ImGui draws its highlight only while its keyboard navigation is on; the keys it would read
    // itself are taken out of its key state (they come from the queue instead, see the header), except
    // while a text field is being typed in, which needs them.
    if (holds_) io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    else io.ConfigFlags &= ~ImGuiConfigFlags_NavEnableKeyboard;
    // ImGui's own Tab (text fields only) would move the focus a second time.
    if (!(io.WantTextInput && field_keeps_tab())) io.KeysDown[GLFW_KEY_TAB] = false;
    if (holds_ && !io.WantTextInput)
        for (int key : {GLFW_KEY_SPACE, GLFW_KEY_ENTER, GLFW_KEY_KP_ENTER, GLFW_KEY_ESCAPE, GLFW_KEY_LEFT, GLFW_KEY_RIGHT,
                        GLFW_KEY_UP, GLFW_KEY_DOWN})
            io.KeysDown[key] = false;
    if (pending_.empty()) return;
    io.NavInputs[pending_.front()] = 1.0f;
    GImGui->NavInputSource = ImGuiInputSource_Keyboard;
    pending_.pop_front();
}

void KeyboardFocus::after_new_frame() {
    if (!holds_) return;
    // ImGui's tabbing opens a slider or a number for typing as it lands on it; here Tab only moves
    // the focus (the arrows then change the slider after Space, as a desktop app's do), so the
    // activation it queued for this frame is taken back.
    ImGuiContext& g = *GImGui;
    if (tab_frames_ > 0) {
        // A greyed-out control (Back on the first step) is passed over, as in any desktop app.
        // (The request's result is in one of two places: the first item when it started or wrapped.)
        const ImGuiNavItemData& landed =
            g.NavMoveResultLocal.ID == g.NavId ? g.NavMoveResultLocal : g.NavTabbingResultFirst;
        if (tab_frames_ == 2 && g.NavId != 0 && landed.ID == g.NavId && (landed.InFlags & ImGuiItemFlags_Disabled) &&
            skipped_ < 32) {
            ++skipped_;
            tab(tab_direction_ == 0 ? +1 : tab_direction_);
            return;
        }
        --tab_frames_;
        if (g.NavActivateInputId != 0 && g.NavActivateInputId == g.NavId &&
            (g.NavActivateFlags & ImGuiActivateFlags_TryToPreserveState)) {
            g.NavActivateId = g.NavActivateInputId = g.NavActivateDownId = g.NavActivatePressedId = 0;
            g.NavActivateFlags = ImGuiActivateFlags_None;
            g.NavDisableHighlight = false;
        }
    }
    for (int b = 0; b < 3; ++b)
        if (ImGui::IsMouseClicked(b)) release();
}

bool KeyboardFocus::take_key(int glfw_key, int mods, bool typing) {
    // A text field keeps its keys, except Tab, which leaves it (the kernel editor keeps Tab too:
    // Escape leaves it, then Tab moves on).
    if (typing && (glfw_key != GLFW_KEY_TAB || field_keeps_tab())) return false;
    const bool shift = (mods & GLFW_MOD_SHIFT) != 0;
    const bool ctrl_or_alt = (mods & (GLFW_MOD_CONTROL | GLFW_MOD_ALT)) != 0;
    if (glfw_key == GLFW_KEY_TAB && !ctrl_or_alt) {
        move_in_panel(shift ? -1 : +1);
        return true;
    }
    if (glfw_key == GLFW_KEY_F6 && !ctrl_or_alt) {
        next_panel(shift ? -1 : +1);
        return true;
    }
    if (!holds_) return false;
    switch (glfw_key) {
        // Escape first ends the change of a slider (ImGui puts the value back), then hands the keys back.
        case GLFW_KEY_ESCAPE:
            if (GImGui->ActiveId != 0) pending_.push_back(ImGuiNavInput_Cancel);
            else release();
            return true;
        case GLFW_KEY_SPACE:
        case GLFW_KEY_ENTER:
        case GLFW_KEY_KP_ENTER: pending_.push_back(ImGuiNavInput_Activate); return true;
        case GLFW_KEY_LEFT: pending_.push_back(ImGuiNavInput_KeyLeft_); return true;
        case GLFW_KEY_RIGHT: pending_.push_back(ImGuiNavInput_KeyRight_); return true;
        case GLFW_KEY_UP: pending_.push_back(ImGuiNavInput_KeyUp_); return true;
        case GLFW_KEY_DOWN: pending_.push_back(ImGuiNavInput_KeyDown_); return true;
        default: return false;  // R, E, the digits ... still do what the key map says
    }
}

void KeyboardFocus::move_in_panel(int direction) {
    ImGuiContext& g = *GImGui;
    const std::vector<ImGuiWindow*> list = panels();
    if (list.empty()) return;
    // The first Tab starts at the step's text (its buttons), Shift-Tab at the last panel.
    if (!holds_ || !is_panel(g.NavWindow, list)) {
        holds_ = true;
        ImGui::FocusWindow(direction >= 0 ? list.front() : list.back());
        direction = 0;
    }
    skipped_ = 0;
    tab(direction);
}

void KeyboardFocus::next_panel(int direction) {
    ImGuiContext& g = *GImGui;
    const std::vector<ImGuiWindow*> list = panels();
    if (list.empty()) return;
    const bool held = holds_;
    holds_ = true;
    const auto at = held && g.NavWindow ? std::find(list.begin(), list.end(), g.NavWindow->RootWindow) : list.end();
    const int n = static_cast<int>(list.size());
    int next = direction >= 0 ? 0 : n - 1;
    if (at != list.end()) next = ((static_cast<int>(at - list.begin()) + direction) % n + n) % n;
    ImGui::FocusWindow(list[static_cast<std::size_t>(next)]);
    skipped_ = 0;
    tab(0);
}

void KeyboardFocus::tab(int direction) {
    submit_tabbing(direction);
    tab_direction_ = direction;
    tab_frames_ = 2;
}

void KeyboardFocus::release() {
    holds_ = false;
    pending_.clear();
    ImGuiContext& g = *GImGui;
    g.NavDisableHighlight = true;
    g.NavId = 0;
}

void KeyboardFocus::draw_ring() const {
    // ImGui's own highlight is a 2-pixel line: too thin to find on a projector. A thicker ring in the
    // same colour goes round the focused control, on top of everything.
    const ImGuiContext& g = *GImGui;
    if (!holds_ || g.NavId == 0 || !g.NavIdIsAlive || !g.NavWindow || g.NavDisableHighlight) return;
    ImGuiWindow* w = g.NavWindow;
    // Clipped as the control is: the kernel editor's field is as wide as its longest line and its
    // panel scrolls sideways, so the ring follows what shows, not the whole field.
    ImRect r = ImGui::WindowRectRelToAbs(w, w->NavRectRel[g.NavLayer]);
    for (const ImGuiWindow* p = w; p; p = p->ParentWindow) r.ClipWithFull(p->InnerClipRect);
    if (r.GetWidth() <= 0.0f || r.GetHeight() <= 0.0f) return;
    const float pad = std::round(ImGui::GetFontSize() * 0.2f), thick = std::max(2.0f, std::round(ImGui::GetFontSize() * 0.18f));
    ImGui::GetForegroundDrawList()->AddRect({r.Min.x - pad, r.Min.y - pad}, {r.Max.x + pad, r.Max.y + pad},
                                            ImGui::GetColorU32(ImGuiCol_NavHighlight), pad, 0, thick);
}

std::string KeyboardFocus::focused_panel() const {
    const ImGuiContext& g = *GImGui;
    if (!holds_ || !g.NavWindow) return "";
    return panel_name(g.NavWindow->RootWindow);
}

}  // namespace gpulab::app
