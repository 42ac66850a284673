// "Inside one block": one block of the real tiled convolution kernel (kernels/conv2d/conv2d_kernels.cuh)
// run on the SIMT simulator with every access recorded (kernels/sim/sim_trace_runs.h), drawn from that
// record, not from a model of it:
//   1. the T x T shared tile, each cell coloured by the warp of the thread that stored it and
//      labelled with that thread's index (the cooperative load: thread t fetches elements t, t+256);
//   2. the __syncthreads() between loading and reading (the trace's first interval boundary);
//   3. the picked thread's window: the shared words it read after the barrier, outlined;
// with the shared-memory bank passes and global sectors of every warp request, from the real
// addresses. Tracing runs only the one block, so it costs milliseconds on any image size.
// In the window the student steps through it (issue 24, "the block trace is too dense"): Back /
// Next, the stage buttons or T (Shift+T back) go from warp 0's stores through each warp's, to the
// barrier, to the picked thread's window reads, to the whole picture; the counts (sectors per
// request, bank passes) only when "show counts" is ticked. The export draws the whole picture with
// the counts. Checked by the conv_block_trace_png test (tests/conv_gui_tests.cmake) and by eye.
#include <algorithm>
#include <cstdio>
#include <string>

#include "conv2d_view.h"
#include "measure/format.h"
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

void Conv2dView::draw_trace_stepper() {
    const float fs = ImGui::GetFontSize();
    const int warps = block_trace_ && block_trace_->ok
                          ? static_cast<int>(block_trace_->trace.block_dim.x * block_trace_->trace.block_dim.y) / 32
                          : 8;
    const int last = warps + 2;
    trace_step_ = std::clamp(trace_step_, 0, last);
    // T steps on, Shift+T back (not while typing in a field). ImGui 1.86 indexes keys by the
    // backend's codes; GLFW's code for a letter is its upper-case ASCII value.
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.WantTextInput && ImGui::IsKeyPressed('T', false))
        trace_step_ = io.KeyShift ? (trace_step_ + last) % (last + 1) : (trace_step_ + 1) % (last + 1);
    ImGui::BeginDisabled(trace_step_ == 0);
    if (ImGui::Button("< Back")) --trace_step_;
    ImGui::EndDisabled();
    hover_tip("One stage back (Shift+T).");
    ImGui::SameLine();
    ImGui::BeginDisabled(trace_step_ == last);
    if (ImGui::Button("Next >")) ++trace_step_;
    ImGui::EndDisabled();
    hover_tip("One stage on (T): each warp's stores, the barrier, one thread's window, then everything at once.");
    ImGui::SameLine();
    const int stage = trace_step_ < warps ? 0 : trace_step_ - warps + 1;
    const char* names[] = {"1 load", "2 barrier", "3 window", "all"};
    for (int i = 0; i < 4; ++i) {
        ImGui::SameLine();
        if (ImGui::RadioButton(names[i], stage == i)) trace_step_ = i == 0 ? 0 : warps + i - 1;
    }
    hover_tip("Jump to a stage: 1 who stores which input (one warp at a time), 2 the barrier, 3 one thread's reads, "
              "all: the whole picture.");
    ImGui::SameLine(0.0f, fs * 1.2f);
    ImGui::Checkbox("show counts", &trace_counts_);
    hover_tip("Global sectors per warp request and shared-memory bank passes, counted from the addresses the kernel "
              "used.");
    ImGui::SameLine();
    ImGui::TextColored(kMutedColour, "T: next stage");
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
    const int warps = threads / 32;
    const int patch_words = s.tile * s.pitch;

    // The stage: in the window the stepper's; a picture (the export) shows every stage and the counts.
    enum class Stage { Load, Barrier, Window, All };
    const int step = interactive ? std::clamp(trace_step_, 0, warps + 2) : warps + 2;
    const Stage stage = step < warps ? Stage::Load : step == warps ? Stage::Barrier
                                                 : step == warps + 1 ? Stage::Window
                                                                     : Stage::All;
    const int warp_now = stage == Stage::Load ? step : -1;
    const bool counts = !interactive || trace_counts_;

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

    if (interactive) {
        const unsigned bx_count = t.launch.grid.x, by_count = t.launch.grid.y;
        ImGui::SetNextItemWidth(fs * 7.0f);
        bool changed = ImGui::SliderInt("block x", &picked_block_[0], 0, static_cast<int>(bx_count) - 1);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(fs * 7.0f);
        changed |= ImGui::SliderInt("block y", &picked_block_[1], 0, static_cast<int>(by_count) - 1);
        hover_tip("Pick any block of the grid; the simulator re-runs just that block of the real kernel. Click a "
                  "thread (right) to see the window it reads.");
        if (changed) {
            trace_block();
            return;
        }
        draw_trace_stepper();
    }

    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    if (interactive)  // one line where the window's room is short
        ImGui::TextWrapped("Block (%u, %u) of the tiled CUDA kernel on cuda-sim (simulated on the CPU), every memory "
                           "access recorded, on this run's image.",
                           t.trace.block.x, t.trace.block.y);
    else
        ImGui::TextWrapped(
            "Block (%u, %u) of the tiled CUDA kernel, run on cuda-sim (the CUDA kernel, simulated on the CPU) with "
            "every memory access recorded: its %d threads on this run's own image, filter %lld x %lld.",
            t.trace.block.x, t.trace.block.y, threads, static_cast<long long>(s.kernel),
            static_cast<long long>(s.kernel));
    ImGui::PopTextWrapPos();

    // Layout: the tile (left), the threads of the block (right), the counts underneath.
    // In the window the tile fits the visible height (the counts below scroll); in a picture, the width.
    float tile_px = std::min(width * 0.56f, fs * 30.0f);
    if (interactive) tile_px = std::min(tile_px, std::max(ImGui::GetContentRegionAvail().y - fs * 2.0f, fs * 8.0f));
    const float cell = std::floor(tile_px / static_cast<float>(s.tile));
    const char* tile_heading = stage == Stage::Load     ? "shared tile: the cells this warp stores (thread index)"
                               : stage == Stage::Window ? "shared tile: the cells this thread reads"
                                                        : "1. shared tile: who stored each input (warp colour, thread)";
    // The threads' grid starts right of the tile and of its heading, and is no taller than the tile.
    const float left_w = std::max(cell * s.tile, ImGui::CalcTextSize(tile_heading).x);
    // In the window the threads take about half the tile's height, so the stage's sentences fit under them.
    const float threads_px =
        std::min({width - left_w - fs * 2.0f, fs * 16.0f, cell * s.tile * (interactive ? 0.5f : 1.0f)});
    const float thread_cell = std::max(2.0f, std::floor(threads_px / 16.0f));
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
            const std::size_t i = static_cast<std::size_t>(r * s.tile + c);
            const int who = loader[i];
            const ImVec2 a{tile0.x + c * cell, tile0.y + r * cell}, b{a.x + cell - 1, a.y + cell - 1};
            const bool inside = y0 + r >= 0 && y0 + r < s.height && x0 + c >= 0 && x0 + c < s.width;
            const bool halo = r < own0 || r >= own1 || c < own0 || c >= own1;
            // In focus: the stage's cells (this warp's stores, this thread's reads); the rest is dimmed.
            const bool focus = stage == Stage::Load     ? who >= 0 && who / 32 == warp_now
                               : stage == Stage::Window ? window[i] != 0
                                                        : true;
            ImU32 fill = who < 0 ? IM_COL32(60, 60, 60, 255) : warp_colour(who / 32, halo ? 0.55f : 1.0f);
            if (!focus) fill = who < 0 ? IM_COL32(40, 40, 40, 255) : warp_colour(who / 32, 0.16f);
            dl->AddRectFilled(a, b, fill);
            if (!inside) dl->AddLine(a, b, IM_COL32(30, 30, 30, 255), 1.5f);  // stored as 0: the zero padding
            if (numbers && who >= 0 && focus) {
                char txt[12];  // any int fits: no truncation (and no -Wformat-truncation)
                std::snprintf(txt, sizeof txt, "%d", who);
                const ImVec2 ts = ImGui::CalcTextSize(txt);
                const float k = std::min(1.0f, (cell - 3) / std::max(ts.x, 1.0f));
                dl->AddText(nullptr, fs * k, {a.x + (cell - ts.x * k) * 0.5f, a.y + (cell - fs * k) * 0.5f},
                            IM_COL32(15, 15, 15, 255), txt);
            }
            if (window[i] && (stage == Stage::Window || stage == Stage::All))
                dl->AddRect({a.x - 1, a.y - 1}, {b.x + 1, b.y + 1}, IM_COL32(255, 220, 60, 255), 0, 0, 2.5f);
        }
    }
    // The block's own span vs the halo.
    dl->AddRect({tile0.x + own0 * cell - 1, tile0.y + own0 * cell - 1}, {tile0.x + own1 * cell, tile0.y + own1 * cell},
                IM_COL32(240, 240, 240, 200), 0, 0, 1.5f);

    // The block's threads, 16 x 16, each its output pixel; the stage's threads highlighted.
    const ImVec2 th0{tile0.x + left_w + fs * 2.0f, tile0.y};
    char heading[96];
    std::snprintf(heading, sizeof heading, "the block's %d threads (%d warps)", threads, warps);
    dl->AddText({th0.x, o.y}, IM_COL32(230, 230, 230, 255), heading);
    for (int i = 0; i < threads; ++i) {
        const int ty = i / 16, tx = i % 16;
        const ImVec2 a{th0.x + tx * thread_cell, th0.y + ty * thread_cell};
        const ImVec2 b{a.x + thread_cell - 1, a.y + thread_cell - 1};
        const bool lit = stage == Stage::Load     ? i / 32 == warp_now
                         : stage == Stage::Window ? i == picked_thread_
                                                  : true;
        dl->AddRectFilled(a, b, warp_colour(i / 32, !lit ? 0.16f : i == picked_thread_ ? 1.0f : 0.7f));
        if (i == picked_thread_ && (stage == Stage::Window || stage == Stage::All))
            dl->AddRect({a.x - 1, a.y - 1}, {b.x + 1, b.y + 1}, IM_COL32(255, 220, 60, 255), 0, 0, 2.5f);
    }
    if (stage == Stage::Barrier) {
        // Every thread stopped at the same line: a bar across the whole block.
        const float gy = th0.y + thread_cell * 8.0f;
        const char* bar = "__syncthreads()";
        const ImVec2 bs = ImGui::CalcTextSize(bar);
        const float k = std::min(1.0f, fs * 0.7f / std::max(bs.y, 1.0f));
        const float cx = th0.x + thread_cell * 8.0f;
        const float half = std::max(thread_cell * 8.0f, bs.x * k * 0.5f) + fs * 0.3f;
        dl->AddRectFilled({std::max(cx - half, th0.x - fs * 0.3f), gy - fs * 0.4f}, {cx + half, gy + fs * 0.4f},
                          IM_COL32(235, 235, 235, 235));
        dl->AddText(nullptr, fs * k, {cx - bs.x * k * 0.5f, gy - fs * k * 0.5f}, IM_COL32(20, 20, 24, 255), bar);
    }
    const float grid_h = std::max(cell * s.tile, thread_cell * 16);
    if (interactive) {
        ImGui::SetCursorScreenPos(th0);
        ImGui::InvisibleButton("##threads", {thread_cell * 16, thread_cell * 16});
        if (ImGui::IsItemClicked()) {
            const ImVec2 m = ImGui::GetIO().MousePos;
            const int tx = static_cast<int>((m.x - th0.x) / thread_cell), ty = static_cast<int>((m.y - th0.y) / thread_cell);
            if (tx >= 0 && tx < 16 && ty >= 0 && ty < 16) {
                picked_thread_ = ty * 16 + tx;
                if (stage != Stage::All) trace_step_ = warps + 1;  // show the window it reads
            }
        }
    }
    // Beside the threads, under them: the numbered stages (the whole picture) or what to look at.
    float ty = th0.y + thread_cell * 16 + fs * 0.6f;
    auto line = [&](ImU32 colour, const std::string& text) {
        const float wrap = o.x + width - th0.x;
        dl->AddText(nullptr, 0.0f, {th0.x, ty}, colour, text.c_str(), nullptr, wrap);
        ty += ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap).y + fs * 0.25f;
    };
    char buf[400];
    if (stage == Stage::All) {
        std::snprintf(buf, sizeof buf, "2. __syncthreads(): all %d threads wait until the whole tile is stored",
                      threads);
        line(IM_COL32(230, 230, 230, 255), buf);
        std::snprintf(buf, sizeof buf, "3. thread (%d, %d) reads its %lld x %lld window from shared memory (outlined)",
                      picked_thread_ % 16, picked_thread_ / 16, static_cast<long long>(s.kernel),
                      static_cast<long long>(s.kernel));
        line(IM_COL32(255, 220, 60, 255), buf);
    } else if (stage == Stage::Load) {
        std::snprintf(buf, sizeof buf,
                      "1. Load, warp %d of %d: threads %d to %d (two rows of 16) each store input values, read from "
                      "global memory, into the shared tile: thread t stores cells t, t + %d, ...; 0 outside the image.",
                      warp_now, warps, warp_now * 32, warp_now * 32 + 31, threads);
        line(warp_colour(warp_now), buf);
        std::snprintf(buf, sizeof buf,
                      "Shown one warp at a time (Next or T for the next warp); on the GPU the %d warps store "
                      "interleaved, in no fixed order.",
                      warps);
        line(IM_COL32(150, 150, 155, 255), buf);
    } else if (stage == Stage::Barrier) {
        std::snprintf(buf, sizeof buf,
                      "2. __syncthreads(): all %d threads wait at the barrier until every warp has stored its part "
                      "of the tile; only then may any thread read it.",
                      threads);
        line(IM_COL32(230, 230, 230, 255), buf);
    } else if (stage == Stage::Window) {
        // Who stored the window's inputs, from the trace.
        std::vector<char> by_thread(static_cast<std::size_t>(threads), 0), by_warp(static_cast<std::size_t>(warps), 0);
        for (std::size_t i = 0; i < window.size(); ++i)
            if (window[i] && loader[i] >= 0 && loader[i] < threads) {
                by_thread[static_cast<std::size_t>(loader[i])] = 1;
                by_warp[static_cast<std::size_t>(loader[i] / 32)] = 1;
            }
        const int n_threads = static_cast<int>(std::count(by_thread.begin(), by_thread.end(), 1));
        const int n_warps = static_cast<int>(std::count(by_warp.begin(), by_warp.end(), 1));
        std::snprintf(buf, sizeof buf,
                      "3. After the barrier, thread (%d, %d) reads its %lld x %lld window from the shared tile "
                      "(outlined): inputs that %d thread%s of %d warp%s stored.",
                      picked_thread_ % 16, picked_thread_ / 16, static_cast<long long>(s.kernel),
                      static_cast<long long>(s.kernel), n_threads, n_threads == 1 ? "" : "s", n_warps,
                      n_warps == 1 ? "" : "s");
        line(IM_COL32(255, 220, 60, 255), buf);
        line(IM_COL32(150, 150, 155, 255), "Click another thread to see its window.");
    }
    ImGui::SetCursorScreenPos({o.x, std::max(tile0.y + grid_h, ty) + fs * 0.4f});

    // The counts, from the recorded addresses: on demand in the window, always in the picture.
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    const auto per = [](int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; };
    if (!counts) {
        ImGui::TextColored(kMutedColour, "Tick 'show counts' for the sectors per warp request and the bank passes.");
    } else if (stage == Stage::Load) {
        // This warp's own requests.
        sim::RequestTotals gl, sh;
        for (const sim::WarpRequest& r : t.requests) {
            if (r.interval != 0 || r.warp != warp_now) continue;
            sim::RequestTotals& x = r.space == sim::Space::Global ? gl : sh;
            if (r.space == sim::Space::Shared && !r.store) continue;
            ++x.requests;
            x.passes += r.passes;
            x.sectors += r.sectors;
            for (uint32_t b : r.bytes) x.bytes += b;
        }
        ImGui::Text("Warp %d's loads: %lld global reads in %lld warp requests, %lld sectors of 32 bytes (%.1f per "
                    "request)",
                    warp_now, static_cast<long long>(gl.bytes / 4), static_cast<long long>(gl.requests),
                    static_cast<long long>(gl.sectors), per(gl.sectors, gl.requests));
        ImGui::Text("Warp %d's shared stores: %lld warp requests, %lld bank passes (%.2f per request)", warp_now,
                    static_cast<long long>(sh.requests), static_cast<long long>(sh.passes),
                    per(sh.passes, sh.requests));
    } else if (stage == Stage::Barrier) {
        ImGui::TextColored(kMutedColour, "The barrier moves no data: it only waits.");
    }
    const sim::RequestTotals stores = sim::totals(t.requests, sim::Space::Shared, 0);
    const sim::RequestTotals reads = sim::totals(t.requests, sim::Space::Shared, 1);
    const sim::RequestTotals loads = sim::totals(t.requests, sim::Space::Global, 0);
    if (counts && stage == Stage::All) {
        ImGui::Text("Load (before the barrier): %lld global reads by %d warps in %lld warp requests, %lld sectors of "
                    "32 bytes (%.1f per request)",
                    static_cast<long long>(loads.bytes / 4), warps, static_cast<long long>(loads.requests),
                    static_cast<long long>(loads.sectors), per(loads.sectors, loads.requests));
        ImGui::Text("Shared stores: %lld warp requests, %lld bank passes (%.2f per request)",
                    static_cast<long long>(stores.requests), static_cast<long long>(stores.passes),
                    per(stores.passes, stores.requests));
    }
    if (counts && (stage == Stage::All || stage == Stage::Window)) {
        const bool conflict_free = reads.passes == reads.requests;
        ImGui::TextColored(conflict_free ? kOkColour : kAccentColour,
                           "Window reads (after the barrier), all %d warps: %lld warp requests, %lld bank passes "
                           "(%.2f per request)%s",
                           warps, static_cast<long long>(reads.requests), static_cast<long long>(reads.passes),
                           per(reads.passes, reads.requests),
                           conflict_free ? ": no bank conflicts" : ": some requests wait on a busy bank");
        hover_tip("Shared memory has 32 banks of 4 bytes. A warp's request takes as many passes as the most distinct "
                  "words it needs from one bank. Counted from the addresses the kernel really used: tile rows are "
                  "padded to a pitch of 16 (mod 32) floats so the two halves of a warp fall into different banks.");
    }
    if (stage == Stage::All || stage == Stage::Load)
        ImGui::TextColored(kMutedColour,
                           "Each input is fetched from global memory once per block, then read by up to %lld threads "
                           "from shared memory. Tile %d x %d floats, rows %d floats apart; dark cells: outside the "
                           "image, stored as 0 (the zero padding); outlined: the inputs under the block's own outputs; "
                           "faded: the halo around them, read only by the block's edge windows.",
                           static_cast<long long>(s.kernel * s.kernel), s.tile, s.tile, s.pitch);
    ImGui::PopTextWrapPos();
}

}  // namespace gpulab::app
