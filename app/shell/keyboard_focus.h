// Keyboard-only use (issue 41): Tab and Shift-Tab move through every control of a panel, F6 and
// Shift-F6 to the next panel, Space or Enter acts on the control, the arrows move between controls
// (or change a slider once Space has taken it), Escape hands the keys back to the lesson.
//
// Why not ImGui's own keyboard navigation switched on for good: in ImGui 1.86 Tab stops only at text
// fields, and the arrows and Space would step the lesson and move the focus at once. So the controls
// hold the keyboard only between a Tab (or F6) and Escape or a click, and the keys come from the
// window's own queue (gui_main.cpp) rather than ImGui's once-a-frame key state, which loses a tap
// shorter than a frame. They reach ImGui as navigation inputs, one per frame, so ImGui still does
// what it does well: finding the next item, drawing the highlight, pressing buttons, tabs and
// checkboxes, changing sliders.
#pragma once

#include <deque>
#include <string>

namespace gpulab::app {

class KeyboardFocus {
public:
    // Before ImGui::NewFrame: hands ImGui the next queued navigation input.
    void before_new_frame();
    // After ImGui::NewFrame, for each key pressed (GLFW key and modifiers; `typing`: a text field has
    // the keyboard). True when the key went to the controls, so the lesson must not act on it too.
    bool take_key(int glfw_key, int mods, bool typing);
    // After ImGui::NewFrame: a click gives the keys back to the lesson (the mouse took over).
    void after_new_frame();
    // After the frame's windows: a ring round the focused control, thick enough for a projector.
    void draw_ring() const;
    // Whether the controls hold the keyboard (a Tab or F6 since the last Escape or click).
    bool holds_keyboard() const { return holds_; }
    // For the status bar and the tests: the panel that has the focus ("Controls", "Canvas", ...), ""
    // while the lesson has the keys.
    std::string focused_panel() const;

private:
    void move_in_panel(int direction);  // +1 Tab, -1 Shift-Tab
    void next_panel(int direction);     // F6 / Shift-F6
    void release();
    void tab(int direction);  // submits the move and remembers it for after_new_frame

    bool holds_ = false;
    int tab_frames_ = 0;       // frames left in which a Tab's activation is taken back
    int tab_direction_ = 0;    // the last Tab's: +1, -1, 0 (a panel's first control)
    int skipped_ = 0;          // greyed-out controls passed over since that Tab
    std::deque<int> pending_;  // ImGuiNavInput_ values, one handed to ImGui per frame
};

}  // namespace gpulab::app
