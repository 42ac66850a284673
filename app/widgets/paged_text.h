// The step text a page at a time, never a scroll box (issue 41): on a 1366 x 768 laptop a step's
// text is often taller than its panel, and a scrolled panel cuts sentences in half and hides that
// more follows. The text is laid out once where it will be drawn (nothing shown), cut into pages
// of whole lines, and a row at the bottom says which part this is and how to reach the others
// (the Down and Up keys, or its buttons). Text that fits is drawn whole with no row.
// Used for the step text (app/shell/lesson_text.cpp, presenter_frame.cpp) and a canvas's text column.
// Checked by `gpulab export --check-layout` (no step text that scrolls), tests/test_paged_text.cpp
// (the cuts) and the GUI test that pages a step (tests/gui_tests.cmake).
#pragma once

#include <functional>
#include <vector>

namespace gpulab::app {

// Where pages start, as offsets from the text's top. A page ends at the last paragraph start
// (`breaks`, sorted) within `page_h` when that leaves it at least three fifths full, else at the
// last line's top (`cuts`, sorted) within it; a stretch with neither is cut at `page_h`. At least
// one page ({0}).
std::vector<float> page_offsets(const std::vector<float>& cuts, const std::vector<float>& breaks, float total_h,
                                float page_h);

// While one lives, every note_line_top() adds the cursor's window-local Y to `tops`: a text renderer
// (the lesson Markdown, app/shell/markdown.cpp) calls it at the start of each line it lays out, which
// is where a page may be cut without cutting a line. One at a time (the GUI draws on one thread).
class LineTops {
public:
    explicit LineTops(std::vector<float>& tops);
    ~LineTops();
    LineTops(const LineTops&) = delete;
    LineTops& operator=(const LineTops&) = delete;
};
void note_line_top();

// Draws `count` parts (draw_part(i): the part with the gap before it) in the rest of the current
// window, a page at a time. Lines noted by note_line_top() are the cut points, with each part's start. `page` is the caller's (clamped here; the Down / Up
// keys change it); returns the number of pages. `arrow_keys`: whether the Down and Up keys turn
// these parts (the step text) or only the row's buttons do (a canvas's text column): the row says so.
int draw_paged_parts(int count, const std::function<void(int)>& draw_part, int& page, bool arrow_keys = true);

}  // namespace gpulab::app
