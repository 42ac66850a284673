// The kernel editor: Dear ImGui's multiline text field in the monospace font, with what a code
// editor needs around it. A line-number gutter that scrolls with the text (the field is as tall as
// its text inside a scrolling child, so one scroll moves both and the numbers stay on their lines);
// marks at lines (a red square for a compiler error, an amber one for a defect the simulator found,
// the messages on hover, the lines tinted); go_to_line() puts the cursor on a line and scrolls it
// into view; Tab inserts spaces to the next multiple of 4 columns; undo and redo are ImGui's own
// (Ctrl+Z, Ctrl+Y; kept while the field is the last one edited); Escape leaves the field without
// ImGui 1.86's revert of everything typed since it was clicked; Ctrl+Enter leaves it and is
// reported (the view runs the check) and the cursor comes back where it was. Checked by eye in
// the screenshots (tests/puzzle_gui_tests.cmake saves them) and by the puzzle GUI tests.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "cuda_syntax.h"

namespace gpulab::app {

struct EditorMark {
    int line = 0;         // 1-based
    bool error = true;    // a compiler error (red); else a defect or a warning (amber)
    std::string message;  // shown when the mark is hovered
};

class CodeEditor {
public:
    // Replaces the text, with a fresh undo history (ImGui's undo steps refer to the old text).
    void set_text(std::string text);
    const std::string& text() const { return text_; }

    struct Frame {
        bool changed = false;     // the student edited the text this frame
        bool run_keys = false;    // Ctrl+Enter
    };
    // Draws the editor in `size` (the rest of the window when 0). `mono` may be null.
    Frame draw(const char* id, ImVec2 size, ImFont* mono, bool read_only, const std::vector<EditorMark>& marks);

    // In the next frame: the cursor at the start of `line` (1-based) and that line in view.
    void go_to_line(int line);
    // Gives the keyboard back to the field in the next frame, the cursor where it was.
    void refocus() { refocus_ = true; }
    bool active() const { return active_; }

private:
    static int callback(ImGuiInputTextCallbackData* data);
    int on_callback(ImGuiInputTextCallbackData* data);

    std::string text_;
    int generation_ = 0;       // part of the field's ID: a new text is a new field to ImGui
    bool active_ = false;      // the field had the keyboard last frame
    int cursor_byte_ = 0;
    int cursor_line_ = 0;      // 0-based, last frame
    int jump_line_ = 0;        // go_to_line() pending (1-based), 0: none
    bool jump_scroll_ = false; // scroll the outer child to jump_line_ this frame
    bool refocus_ = false;
    bool follow_cursor_ = false;
    // The colours' spans and the longest line's width, for the text and font size they were made
    // from: made again only when either changes, not every frame.
    std::string laid_out_text_;
    float laid_out_font_ = 0.0f;
    std::vector<CudaSpan> spans_;
    float longest_line_w_ = 0.0f;
    void lay_out_text();
};

}  // namespace gpulab::app
