// Text in a table cell, and a note of the text that did not fit it (issue 26). ImGui cuts a cell's
// text at its column's edge without any sign: "41.2 GB/s = 104 % of 39" reads as a whole number.
// cell_text() draws like ImGui::TextUnformatted and, while the notes are on (gpulab export
// --check-layout), notes text wider than the room left in its cell, with the cell it was in;
// app/cli/layout_check.cpp reports the notes of the last frame with the step. Checked by
// tests/ui/test_layout_check.cpp, which plants a column too narrow for its text.
#pragma once

#include <imgui.h>

#include <string>
#include <string_view>
#include <vector>

namespace gpulab::app {

struct CellTextNote {
    std::string window;        // ImGui's name of the window holding the table
    unsigned table_id = 0;     // ImGui's id of the table (BeginTable keeps no name)
    int column = 0, row = 0;   // ImGui's indices: with a header row, the first row of data is row 1
    std::string column_name;   // TableSetupColumn's label, "" when it has none
    std::string text;
    float wider_px = 0;        // how far the text runs past the cell's content region
    int frame = 0;             // ImGui's frame count when it was drawn
};

// Off by default: the window never pays for the measuring. One switch for the process, like the
// palette: the headless export turns it on for --check-layout.
void set_cell_text_notes(bool on);
// Notes `text` when it is about to be drawn at the cursor inside a table cell and is wider than the
// room left in that cell. Called by cell_text(); does nothing outside a table or with notes off.
void note_cell_text(std::string_view text);
// The notes made during ImGui's last frame, one per cell and text; every note is then forgotten.
std::vector<CellTextNote> take_cell_text_notes();

// One line of text in a table cell, noted when it does not fit (above).
void cell_text(std::string_view text);
void cell_text(const ImVec4& colour, std::string_view text);
// printf-style: cell_textf("%d", n) where ImGui::Text("%d", n) was.
void cell_textf(const char* fmt, ...) IM_FMTARGS(1);
void cell_textf(const ImVec4& colour, const char* fmt, ...) IM_FMTARGS(2);

}  // namespace gpulab::app
