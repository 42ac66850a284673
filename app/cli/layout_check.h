// What a headless frame could not fit (issue 26): every panel whose content is wider than the
// panel (text cut at its right edge: the "loac", "hardware thre" a projector showed) or taller
// (a scroll bar on the step). Read from ImGui's own bookkeeping of the last frame (each window's
// scroll range), so it sees only what ImGui items laid out, not shapes drawn straight into a draw
// list. `gpulab export --check-layout` prints them per step and fails on the wide ones.
//
// Table cells need their own look: ImGui clips each column to its width and the window's scroll
// range never grows, so a column too narrow for its text passed unseen. cell_overflows() reads each
// table's columns (the widest content every column had in the last frame, headers included) and the
// notes of cell_text() (widgets/cell_text.h), which name the text and its row. Tested by
// tests/ui/test_layout_check.cpp.
#pragma once

#include <string>
#include <vector>

namespace gpulab::app {

struct LayoutOverflow {
    std::string window;  // ImGui's window name, "Canvas", "Timing", "##present_text/##pv_step", ...
    float wider_px = 0;  // content beyond the right edge
    float taller_px = 0; // content below the bottom edge (the panel scrolls)
};

// The current ImGui context's visible windows after its last frame; tooltips are left out.
std::vector<LayoutOverflow> layout_overflows();

// "Canvas: 34 px wider than the panel" / "Timing: scrolls by 120 px".
std::string describe(const LayoutOverflow& o);

struct CellOverflow {
    std::string window;  // the window holding the table, "Canvas/##panel_1A2B3C4D", ...
    std::string cell;    // "column 'throughput vs measured limit', row 2", "header 'ridge'", "column 3"
    std::string text;    // the text that was cut; "" when it was not drawn through cell_text()
    float wider_px = 0;  // beyond the cell's content region
};

// Every table cell of the last frame whose content is wider than the cell. A column whose text went
// through cell_text() is listed once per text that did not fit; any other column once, by its widest
// content (a plain ImGui::Text, a button), without the text. The texts need set_cell_text_notes(true)
// before the frame.
std::vector<CellOverflow> cell_overflows();

// "Canvas/##panel_1A2B3C4D, column 'median', row 2: 48 px wider than the cell: "12.3 ms (1.1 ms - ...)"".
std::string describe(const CellOverflow& o);

}  // namespace gpulab::app
