// "Inside one block": one block of the real tiled convolution kernel (kernels/conv2d_kernels.cuh)
// run on the SIMT simulator with every access recorded (kernels/sim_trace_runs.h), drawn from that
// record, not from a model of it:
//   1. the T x T shared tile, each cell coloured by the warp of the thread that stored it and
//      labelled with that thread's index (the cooperative load: thread t fetches elements t, t+256);
//   2. the __syncthreads() between loading and reading (the trace's first interval boundary);
//   3. the picked thread's window: the shared words it read after the barrier, outlined;
// with the shared-memory bank passes and global sectors of every warp request, from the real
// addresses. Tracing runs only the one block, so it costs milliseconds on any image size.
#include <algorithm>
#include <cstdio>
#include <string>

#include "conv2d_view.h"
#include "format.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

ImU32 warp_colour(int warp, float alpha = 1.0f) {
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(static_cast<float>(warp % 8) / 8.0f, 0.55f, 0.85f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32({r, g, b, alpha});
}

}  // namespace

void Conv2dView::trace_block() {
    block_trace_.reset();
    if (!result_ || !result_->run.ok || result_->run.params.layer_mode) return;
    const core::Conv2dRun& run = result_->run;
    core::Conv2dDesc d = run.desc;
    // Plane 0 only: the first picture with the first filter (per channel: the R plane).
    d.batch = 1;
    d.filters = 1;
    const int64_t in_plane = d.channels * d.height * d.width;
    const int64_t f_size = d.channels * d.kernel * d.kernel;
    if (run.input.size() < in_plane || run.filters.size() < f_size) return;
    core::Tensor in = core::Tensor::zeros({1, d.channels, d.height, d.width});
    core::Tensor f = core::Tensor::zeros({1, d.channels, d.kernel, d.kernel});
    std::copy(run.input.ptr(), run.input.ptr() + in_plane, in.ptr());
    std::copy(run.filters.ptr(), run.filters.ptr() + f_size, f.ptr());
    const unsigned bx_count = static_cast<unsigned>((d.out_width() + 15) / 16);
    const unsigned by_count = static_cast<unsigned>((d.out_height() + 15) / 16);
    if (bx_count == 0 || by_count == 0) return;
    if (picked_block_[0] < 0 || picked_block_[0] >= static_cast<int>(bx_count)) picked_block_[0] = bx_count / 2;
    if (picked_block_[1] < 0 || picked_block_[1] >= static_cast<int>(by_count)) picked_block_[1] = by_count / 2;
    block_trace_ = std::make_shared<const sim::ConvBlockTrace>(sim::trace_conv2d_block(
        d, in, f, static_cast<unsigned>(picked_block_[0]), static_cast<unsigned>(picked_block_[1])));
}

void Conv2dView::draw_block_trace(float width, bool interactive) {
    const float fs = ImGui::GetFontSize();
    if (!block_trace_) {
        ImGui::TextColored(kMutedColour, "Run first (R): the trace uses this run's image and filter.");
        return;
    }
    const sim::ConvBlockTrace& t = *block_trace_;
    if (!t.ok) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        ImGui::TextColored(kMutedColour, "No block trace for this shape: %s", t.error.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    const kern::ConvShape& s = t.shape;
    const int threads = static_cast<int>(t.trace.block_dim.x * t.trace.block_dim.y);
    const int patch_words = s.tile * s.pitch;

    // Who stored each tile cell (first interval), and which cells the picked thread read (second).
    std::vector<int> loader(static_cast<std::size_t>(s.tile * s.tile), -1);
    std::vector<char> window(static_cast<std::size_t>(s.tile * s.tile), 0);
    for (const sim::TraceEvent& e : t.trace.events) {
        if (e.space != sim::Space::Shared) continue;
        const int64_t word = e.offset / 4;
        if (word >= patch_words) continue;  // the filter slice beside the tile
        const int row = static_cast<int>(word / s.pitch), col = static_cast<int>(word % s.pitch);
        if (col >= s.tile) continue;
        const std::size_t cell = static_cast<std::size_t>(row * s.tile + col);
        if (e.store && e.interval == 0) loader[cell] = e.thread;
        if (!e.store && e.interval == 1 && e.thread == picked_thread_) window[cell] = 1;
    }
    const sim::RequestTotals stores = sim::totals(t.requests, sim::Space::Shared, 0);
    const sim::RequestTotals reads = sim::totals(t.requests, sim::Space::Shared, 1);
    const sim::RequestTotals loads = sim::totals(t.requests, sim::Space::Global, 0);

    if (interactive) {
        const unsigned bx_count = t.launch.grid.x, by_count = t.launch.grid.y;
        ImGui::SetNextItemWidth(fs * 7.0f);
        bool changed = ImGui::SliderInt("block x", &picked_block_[0], 0, static_cast<int>(bx_count) - 1);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(fs * 7.0f);
        changed |= ImGui::SliderInt("block y", &picked_block_[1], 0, static_cast<int>(by_count) - 1);
        hover_tip("Pick any block of the grid; the simulator re-runs just that block of the real kernel.");
        ImGui::SameLine();
        ImGui::TextColored(kMutedColour, "click a thread (right) to outline its window");
        if (changed) {
            trace_block();
            return;
        }
    }

    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::TextWrapped(
        "Block (%u, %u) of the tiled CUDA kernel, run on cuda-sim (the CUDA kernel, simulated on the CPU) with "
        "every memory access recorded: its %d threads on this run's own image, filter %lld x %lld.",
        t.trace.block.x, t.trace.block.y, threads, static_cast<long long>(s.kernel), static_cast<long long>(s.kernel));
    ImGui::PopTextWrapPos();

    // Layout: the tile (left), the threads of the block (right), the counts underneath.
    // In the window the tile fits the visible height (the counts below scroll); in a picture, the width.
    float tile_px = std::min(width * 0.56f, fs * 30.0f);
    if (interactive) tile_px = std::min(tile_px, std::max(ImGui::GetContentRegionAvail().y - fs * 4.0f, fs * 12.0f));
    const float cell = std::floor(tile_px / static_cast<float>(s.tile));
    const char* tile_heading = "1. shared tile: who stored each input (warp colour, thread)";
    // The threads' grid starts right of the tile and of its heading, and is no taller than the tile.
    const float left_w = std::max(cell * s.tile, ImGui::CalcTextSize(tile_heading).x);
    const float thread_cell = std::max(
        2.0f, std::floor(std::min({width - left_w - fs * 2.0f, fs * 16.0f, cell * s.tile}) / 16.0f));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 tile0{o.x, o.y + lh};
    dl->AddText(o, IM_COL32(230, 230, 230, 255), tile_heading);
    const int y0 = static_cast<int>(t.trace.block.y) * 16 * s.stride - s.pad;
    const int x0 = static_cast<int>(t.trace.block.x) * 16 * s.stride - s.pad;
    const bool numbers = cell >= fs * 1.45f;
    // The block's own span: the inputs under its 16 x 16 outputs' window centres (every stride-th
    // one), as the textbook draws it; the halo is the ring around it that only its edge windows
    // read ((R - 1) / 2 wide on each side).
    const int own0 = static_cast<int>((s.kernel - 1) / 2);
    const int own1 = std::min(own0 + 16 * s.stride, s.tile);
    for (int r = 0; r < s.tile; ++r) {
        for (int c = 0; c < s.tile; ++c) {
            const int who = loader[static_cast<std::size_t>(r * s.tile + c)];
            const ImVec2 a{tile0.x + c * cell, tile0.y + r * cell}, b{a.x + cell - 1, a.y + cell - 1};
            const bool inside = y0 + r >= 0 && y0 + r < s.height && x0 + c >= 0 && x0 + c < s.width;
            const bool halo = r < own0 || r >= own1 || c < own0 || c >= own1;
            dl->AddRectFilled(a, b, who < 0 ? IM_COL32(60, 60, 60, 255) : warp_colour(who / 32, halo ? 0.55f : 1.0f));
            if (!inside) dl->AddLine(a, b, IM_COL32(30, 30, 30, 255), 1.5f);  // stored as 0: the zero padding
            if (numbers && who >= 0) {
                char txt[12];  // any int fits: no truncation (and no -Wformat-truncation)
                std::snprintf(txt, sizeof txt, "%d", who);
                const ImVec2 ts = ImGui::CalcTextSize(txt);
                const float k = std::min(1.0f, (cell - 3) / std::max(ts.x, 1.0f));
                dl->AddText(nullptr, fs * k, {a.x + (cell - ts.x * k) * 0.5f, a.y + (cell - fs * k) * 0.5f},
                            IM_COL32(15, 15, 15, 255), txt);
            }
            if (window[static_cast<std::size_t>(r * s.tile + c)])
                dl->AddRect({a.x - 1, a.y - 1}, {b.x + 1, b.y + 1}, IM_COL32(255, 220, 60, 255), 0, 0, 2.5f);
        }
    }
    // The block's own span vs the halo.
    dl->AddRect({tile0.x + own0 * cell - 1, tile0.y + own0 * cell - 1}, {tile0.x + own1 * cell, tile0.y + own1 * cell},
                IM_COL32(240, 240, 240, 200), 0, 0, 1.5f);

    // The block's threads, 16 x 16, each its output pixel; the picked one highlighted.
    const ImVec2 th0{tile0.x + left_w + fs * 2.0f, tile0.y};
    dl->AddText({th0.x, o.y}, IM_COL32(230, 230, 230, 255), "the block's 256 threads (8 warps)");
    for (int i = 0; i < threads; ++i) {
        const int ty = i / 16, tx = i % 16;
        const ImVec2 a{th0.x + tx * thread_cell, th0.y + ty * thread_cell};
        const ImVec2 b{a.x + thread_cell - 1, a.y + thread_cell - 1};
        dl->AddRectFilled(a, b, warp_colour(i / 32, i == picked_thread_ ? 1.0f : 0.7f));
        if (i == picked_thread_) dl->AddRect({a.x - 1, a.y - 1}, {b.x + 1, b.y + 1}, IM_COL32(255, 220, 60, 255), 0, 0, 2.5f);
    }
    const float grid_h = std::max(cell * s.tile, thread_cell * 16);
    if (interactive) {
        ImGui::SetCursorScreenPos(th0);
        ImGui::InvisibleButton("##threads", {thread_cell * 16, thread_cell * 16});
        if (ImGui::IsItemClicked()) {
            const ImVec2 m = ImGui::GetIO().MousePos;
            const int tx = static_cast<int>((m.x - th0.x) / thread_cell), ty = static_cast<int>((m.y - th0.y) / thread_cell);
            if (tx >= 0 && tx < 16 && ty >= 0 && ty < 16) picked_thread_ = ty * 16 + tx;
        }
    }
    // Steps 2 and 3 beside the threads, under them.
    float ty = th0.y + thread_cell * 16 + fs * 0.6f;
    auto line = [&](ImU32 colour, const std::string& text) {
        const float wrap = o.x + width - th0.x;
        dl->AddText(nullptr, 0.0f, {th0.x, ty}, colour, text.c_str(), nullptr, wrap);
        ty += ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap).y + fs * 0.25f;
    };
    char buf[256];
    std::snprintf(buf, sizeof buf, "2. __syncthreads(): all %d threads wait until the whole tile is stored", threads);
    line(IM_COL32(230, 230, 230, 255), buf);
    std::snprintf(buf, sizeof buf, "3. thread (%d, %d) reads its %lld x %lld window from shared memory (outlined)",
                  picked_thread_ % 16, picked_thread_ / 16, static_cast<long long>(s.kernel),
                  static_cast<long long>(s.kernel));
    line(IM_COL32(255, 220, 60, 255), buf);
    ImGui::SetCursorScreenPos({o.x, std::max(tile0.y + grid_h, ty) + fs * 0.4f});

    // The counts, from the recorded addresses.
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    const auto per = [](int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; };
    ImGui::Text("Load (before the barrier): %lld global reads by %d warps in %lld warp requests, %lld sectors of 32 "
                "bytes (%.1f per request)",
                static_cast<long long>(loads.bytes / 4), threads / 32, static_cast<long long>(loads.requests),
                static_cast<long long>(loads.sectors), per(loads.sectors, loads.requests));
    ImGui::Text("Shared stores: %lld warp requests, %lld bank passes (%.2f per request)",
                static_cast<long long>(stores.requests), static_cast<long long>(stores.passes),
                per(stores.passes, stores.requests));
    const bool conflict_free = reads.passes == reads.requests;
    ImGui::TextColored(conflict_free ? kOkColour : kAccentColour,
                       "Window reads (after the barrier): %lld warp requests, %lld bank passes (%.2f per request)%s",
                       static_cast<long long>(reads.requests), static_cast<long long>(reads.passes),
                       per(reads.passes, reads.requests),
                       conflict_free ? ": no bank conflicts" : ": some requests wait on a busy bank");
    hover_tip("Shared memory has 32 banks of 4 bytes. A warp's request takes as many passes as the most distinct "
              "words it needs from one bank. Counted from the addresses the kernel really used: tile rows are "
              "padded to a pitch of 16 (mod 32) floats so the two halves of a warp fall into different banks.");
    ImGui::TextColored(kMutedColour,
                       "Each input is fetched from global memory once per block, then read by up to %lld threads from "
                       "shared memory. Tile %d x %d floats, rows %d floats apart; dark cells: outside the image, "
                       "stored as 0 (the zero padding); outlined: the inputs under the block's own outputs; faded: the "
                       "halo around them, read only by the block's edge windows.",
                       static_cast<long long>(s.kernel * s.kernel), s.tile, s.tile, s.pitch);
    ImGui::PopTextWrapPos();
}

}  // namespace gpulab::app
