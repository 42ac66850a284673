// "All at once", one SM up close (issue 24, "independent versus simultaneous"): the SM's resident
// warps (resident blocks x 8 warps: 64 on the H100 example) in one row per warp scheduler, and an
// illustrative schedule animated slowly, one cycle every 0.8 s: each scheduler issues at most one
// warp instruction a cycle (that warp lights up), warps whose load has not returned are drawn
// waiting, the others are ready and wait their turn. "All at once" thus reads as "all resident,
// interleaved to hide latency", the CUDA C++ Programming Guide's "Hardware Multithreading": every
// resident warp keeps its context on the SM, so a scheduler can switch to any ready warp at no
// cost. The numbers drawn (warps, schedulers) come from core/gpu_model/gpu_model.h for this machine's GPU or
// the labelled H100 example; the schedule is core::illustrative_warp_states, labelled on screen as
// an illustration, not a trace of a real GPU. Its rules are tested in tests/test_gpu_model_sm.cpp;
// the picture is checked by eye in the step's export (gpulab export --all-steps).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "conv2d_view.h"
#include "gpu_model/gpu_model.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// One hue per resident block, so a block's 8 warps are seen spread over the schedulers.
ImU32 block_colour(int block, int blocks, float alpha) {
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(static_cast<float>(block) / static_cast<float>(std::max(blocks, 1)), 0.55f, 0.9f, r,
                                g, b);
    return ImGui::ColorConvertFloat4ToU32({r, g, b, alpha});
}

constexpr ImU32 kIssueColour = IM_COL32(255, 220, 60, 255);
constexpr ImU32 kWaitFill = IM_COL32(38, 38, 44, 255);
constexpr ImU32 kWaitHatch = IM_COL32(95, 95, 110, 255);

// The three looks of a warp cell, shared by the grid and the legend.
void warp_cell(ImDrawList* dl, ImVec2 a, float side, core::WarpState state, ImU32 block, float line) {
    const ImVec2 b{a.x + side, a.y + side};
    switch (state) {
        case core::WarpState::Issued:
            dl->AddRectFilled(a, b, block);
            dl->AddRect({a.x - line * 0.5f, a.y - line * 0.5f}, {b.x + line * 0.5f, b.y + line * 0.5f}, kIssueColour,
                        0.0f, 0, line * 1.6f);
            break;
        case core::WarpState::Ready:
            dl->AddRectFilled(a, b, (block & ~IM_COL32_A_MASK) | IM_COL32(0, 0, 0, 120));
            break;
        case core::WarpState::Waiting: {
            dl->AddRectFilled(a, b, kWaitFill);
            // Hatched: waiting for its load from memory.
            dl->PushClipRect(a, b, true);
            const float step = std::max(side / 3.0f, 3.0f);
            for (float t = -side; t < side; t += step)
                dl->AddLine({a.x + t, b.y}, {a.x + t + side, a.y}, kWaitHatch, line);
            dl->PopClipRect();
            // A stripe of the block's colour keeps the warp findable while it waits.
            dl->AddRectFilled({a.x, b.y - std::max(2.0f, side * 0.16f)}, b,
                              (block & ~IM_COL32_A_MASK) | IM_COL32(0, 0, 0, 160));
            break;
        }
    }
}

}  // namespace

void Conv2dView::draw_sm_warps(const BlockSchedule& s, ImVec2 box) {
    const float fs = ImGui::GetFontSize();
    const float line = std::max(1.0f, fs / 13.0f);  // line widths grow with the text (presenter mode)
    const int threads_per_block = BlockSchedule::kTile * BlockSchedule::kTile;
    const int warps_per_block = (threads_per_block + core::kWarpSize - 1) / core::kWarpSize;
    const int warps = core::resident_warps_per_sm(s.blocks_per_sm, threads_per_block);
    const int schedulers = core::warp_schedulers_per_sm(s.cc_major, s.cc_minor);
    if (warps <= 0 || schedulers <= 0 || box.x < fs * 8.0f) return;
    // Its own child: where the box is too small for readable rows (presenter mode on a small
    // window), the picture keeps its minimum size and scrolls rather than shrinking into noise.
    ImGui::BeginChild("##sm_warps", box, false, ImGuiWindowFlags_NavFlattened);
    box.x -= ImGui::GetStyle().ScrollbarSize;

    // One cycle every 0.8 s, from the schedule's steady state on (the first cycles, with every warp
    // ready at once, are the start-up, not the picture to learn from), looping over 64 cycles.
    constexpr int64_t kWarmUp = 128, kLoop = 64;
    constexpr float kSecondsPerCycle = 0.8f;
    const int64_t shown = static_cast<int64_t>(std::max(anim_time_, 0.0f) / kSecondsPerCycle) % kLoop;
    const std::vector<core::WarpState> states = core::illustrative_warp_states(warps, schedulers, kWarmUp + shown);
    int issued = 0, waiting = 0, ready = 0;
    for (core::WarpState w : states) {
        issued += w == core::WarpState::Issued;
        waiting += w == core::WarpState::Waiting;
        ready += w == core::WarpState::Ready;
    }

    const ImVec2 o = ImGui::GetCursorScreenPos();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + box.x);
    ImGui::TextWrapped("One SM (%s): %d blocks x %d warps = %d resident warps, %d warp schedulers",
                       s.example ? "H100 example" : "this machine's GPU", s.blocks_per_sm, warps_per_block, warps,
                       schedulers);
    ImGui::PopTextWrapPos();
    hover_tip("Each row is one warp scheduler and the warps assigned to it (warp w to scheduler w mod the number of "
              "schedulers); colours are the resident blocks. Every warp runs the same loop: 4 instructions, the last a "
              "load from global memory, then it waits 40 cycles for the data. Shortened for the picture: a real load "
              "from GPU memory takes longer, and real schedulers' policies are not published. Here each scheduler "
              "keeps issuing from its last warp while it is ready, else from the ready warp that waited longest.");

    // Below the grid: the legend (wrapped to as many lines as the box needs) and this cycle's count.
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const float sw = std::floor(fs * 0.9f);
    struct Legend {
        core::WarpState state;
        const char* text;
    };
    static constexpr Legend kLegend[] = {{core::WarpState::Issued, "issues"},
                                         {core::WarpState::Ready, "ready, waits its turn"},
                                         {core::WarpState::Waiting, "waits for memory"}};
    const auto legend_w = [&](const Legend& l) { return sw + line * 2.0f + fs * 0.3f + ImGui::CalcTextSize(l.text).x; };
    int legend_lines = 1;
    for (float x = 0.0f; const Legend& l : kLegend) {
        if (x > 0.0f && x + fs * 0.8f + legend_w(l) > box.x) {
            ++legend_lines;
            x = 0.0f;
        }
        x += (x > 0.0f ? fs * 0.8f : 0.0f) + legend_w(l);
    }
    char status[200];
    std::snprintf(status, sizeof status,
                  "Illustrative cycle %lld, not a trace of a real GPU: %d of %d warps issue (at most 1 per "
                  "scheduler), %d wait for memory, %d ready",
                  static_cast<long long>(shown + 1), issued, warps, waiting, ready);
    const float status_h = ImGui::CalcTextSize(status, nullptr, false, box.x).y;
    const ImVec2 g0 = ImGui::GetCursorScreenPos();
    const float top = g0.y - o.y;

    // Rows: one per scheduler, or two or four per scheduler on a narrow box, whichever gives the
    // biggest cells; the scheduler's name on the left of its first row. The legend goes under the
    // grid, or, where that gives bigger cells (a short, wide box), in a column right of it.
    const int per_sched = (warps + schedulers - 1) / schedulers;
    char label[32];
    std::snprintf(label, sizeof label, "scheduler %d", schedulers - 1);
    const bool short_labels = ImGui::CalcTextSize(label).x > box.x * 0.3f;
    std::snprintf(label, sizeof label, short_labels ? "S%d" : "scheduler %d", schedulers - 1);
    const float label_w = ImGui::CalcTextSize(label).x + fs * 0.6f;
    const float gap_rows = fs * 0.35f;  // between schedulers
    float legend_col_w = 0.0f;
    for (const Legend& l : kLegend) legend_col_w = std::max(legend_col_w, legend_w(l));
    legend_col_w += fs;
    // Cells between 0.8 and 2.4 text heights: with the gap, labels of adjacent rows never overlap. Of the
    // arrangements whose rows fit the width, the one with the biggest cells, then the shortest; the
    // box scrolls vertically if even that is too tall.
    int split = 4;
    float cell = 0.0f, best_h = 0.0f;
    bool legend_right = false, found = false;
    for (const bool right : {false, true}) {
        const float grid_w = box.x - label_w - (right ? legend_col_w : 0.0f);
        const float below = (right ? 0.0f : lh * static_cast<float>(legend_lines)) + status_h + fs * 0.6f;
        const float grid_h = std::max(box.y - top - below, fs * 2.0f);
        if (right && 3.0f * lh > grid_h) continue;  // no room for the column's three lines
        for (int k : {1, 2, 4}) {
            if (k > 1 && per_sched % k != 0) continue;
            const int cols = per_sched / k, rows = schedulers * k;
            float c = std::min(grid_w / static_cast<float>(cols),
                               (grid_h - gap_rows * static_cast<float>(schedulers - 1)) / static_cast<float>(rows));
            c = std::floor(std::clamp(c, fs * 0.8f, fs * 2.4f));
            if (c * static_cast<float>(cols) > grid_w + 0.5f) continue;  // rows wider than the box
            const float h = c * static_cast<float>(rows) + gap_rows * static_cast<float>(schedulers - 1);
            if (!found || c > cell + 0.5f || (c > cell - 0.5f && h < best_h)) {
                found = true;
                cell = c;
                best_h = h;
                split = k;
                legend_right = right;
            }
        }
    }
    if (!found) {  // even four rows per scheduler overflow: fit the width, however small
        split = per_sched % 4 == 0 ? 4 : 1;
        cell = std::max(2.0f, std::floor((box.x - label_w) / static_cast<float>(per_sched / split)));
    }
    const int cols = per_sched / split;
    const float pad = std::max(1.0f, std::floor(cell * 0.12f));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const bool numbers = cell - 2 * pad >= ImGui::CalcTextSize("63").x + 2.0f;
    float y = g0.y;
    for (int sc = 0; sc < schedulers; ++sc) {
        // Does this scheduler issue this cycle?
        int from = -1;
        for (int w = sc; w < warps; w += schedulers)
            if (states[static_cast<std::size_t>(w)] == core::WarpState::Issued) from = w;
        std::snprintf(label, sizeof label, short_labels ? "S%d" : "scheduler %d", sc);
        dl->AddText({g0.x, y + (cell - fs) * 0.5f}, from >= 0 ? kIssueColour : IM_COL32(150, 150, 155, 255), label);
        for (int k = 0; k < per_sched; ++k) {
            const int w = sc + k * schedulers;
            if (w >= warps) break;
            const ImVec2 a{g0.x + label_w + static_cast<float>(k % cols) * cell + pad,
                           y + static_cast<float>(k / cols) * cell + pad};
            const float side = cell - 2 * pad;
            const core::WarpState st = states[static_cast<std::size_t>(w)];
            warp_cell(dl, a, side, st, block_colour(w / warps_per_block, s.blocks_per_sm, 1.0f), line);
            if (numbers) {
                char t[12];  // any int fits
                std::snprintf(t, sizeof t, "%d", w);
                const ImVec2 ts = ImGui::CalcTextSize(t);
                const ImU32 tc = st == core::WarpState::Issued ? IM_COL32(15, 15, 15, 255)
                                 : st == core::WarpState::Ready ? IM_COL32(235, 235, 235, 255)
                                                                 : IM_COL32(150, 150, 160, 255);
                dl->AddText({a.x + (side - ts.x) * 0.5f, a.y + (side - ts.y) * 0.5f}, tc, t);
            }
        }
        y += cell * static_cast<float>(split) + gap_rows;
    }
    ImGui::SetCursorScreenPos(g0);
    ImGui::Dummy({box.x, std::max(y - g0.y - gap_rows, 1.0f)});

    // The legend, drawn with the same cells: under the grid, or a column right of it.
    const float grid_bottom = y - gap_rows + fs * 0.4f;
    const float legend_x = legend_right ? g0.x + label_w + cell * static_cast<float>(cols) + fs : g0.x;
    ImGui::SetCursorScreenPos({legend_x, legend_right ? g0.y : grid_bottom});
    float x = 0.0f;
    for (const Legend& l : kLegend) {
        if (legend_right) {
            ImGui::SetCursorScreenPos({legend_x, ImGui::GetCursorScreenPos().y});
        } else if (x > 0.0f && x + fs * 0.8f + legend_w(l) <= box.x) {
            ImGui::SameLine(0.0f, fs * 0.8f);
            x += fs * 0.8f;
        } else {
            x = 0.0f;
        }
        const ImVec2 p = ImGui::GetCursorScreenPos();
        warp_cell(dl, {p.x + line, p.y + (lh - sw) * 0.5f - 1.0f}, sw, l.state, block_colour(0, s.blocks_per_sm, 1.0f),
                  line);
        ImGui::Dummy({sw + line * 2.0f, lh - ImGui::GetStyle().ItemSpacing.y});
        ImGui::SameLine(0.0f, fs * 0.3f);
        ImGui::TextUnformatted(l.text);
        x += legend_w(l);
    }
    ImGui::SetCursorScreenPos({g0.x, std::max(grid_bottom, ImGui::GetCursorScreenPos().y)});
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + box.x);
    ImGui::TextColored(kAccentColour, "%s", status);
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
}

}  // namespace gpulab::app
