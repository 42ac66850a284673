// What a headless frame could not fit (issue 26): every panel whose content is wider than the
// panel (text cut at its right edge: the "loac", "hardware thre" a projector showed) or taller
// (a scroll bar on the step). Read from ImGui's own bookkeeping of the last frame (each window's
// scroll range), so it sees only what ImGui items laid out, not shapes drawn straight into a draw
// list. `gpulab export --check-layout` prints them per step and fails on the wide ones.
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

}  // namespace gpulab::app
