// Plots of the latency lesson's size sweep, drawn with ImDrawList like timing_plot.h: time
// against size (log-log, one line per backend, p25..p75 band, the GPU's resident line dashed,
// the crossover marked), throughput against size (log-log), and the phase breakdown bars at one
// size. The Canvas and the exported <lesson>-sweep.png call the same functions, so the report
// shows the screen. With another machine's sweep imported, its curves are drawn over these. Checked by the gui.latency_export tests and by eye in the screenshots.
#pragma once

#include <imgui.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare_import.h"
#include "probes/latency_probe.h"
#include "workloads/latency_sweep.h"

namespace gpulab::app {

struct SweepPlotOptions {
    bool transfers = true;  // the GPU's bold line counts the copies; false: kernel only (resident)
    int marked_exp = -1;    // >= 0: a faint vertical line at 2^marked_exp (the breakdown size)
    // Another machine's sweep: its median per backend and size as thin, lighter lines with hollow
    // dots in the backend's colour, and a legend entry naming it; null: none.
    const core::ImportedSweep* other = nullptr;
    // Not empty while a predict prompt about the GPU waits for its answer: the GPU's lines (live,
    // recorded or estimated) and the crossover stay off the plot, and this note says why.
    std::string gpu_hidden_note;
};

// The sweep without its GPU backends' runs (for SweepPlotOptions::gpu_hidden_note): the CPU lines alone.
core::SweepResult without_gpu_runs(const core::SweepResult& result);

// Why the plot has no GPU line: the probe's reason, or the GPU backends' own. Empty when one ran.
std::string gpu_missing_reason(const core::SweepResult& result);
// The same in a student's words ("no NVIDIA GPU driver on this computer") where the reason is one
// core::plain_gpu_reason knows; the driver's text then belongs in a tooltip or the Devices panel.
std::string gpu_missing_sentence(const core::SweepResult& result);

// "the GPU wins above N = 2^16.9 (121,000 elements)", "... never wins up to 2^24", or empty.
std::string crossover_text(const core::SweepResult& result, bool transfers);

void draw_sweep_time_plot(const core::SweepResult& result, const SweepPlotOptions& options, ImVec2 size);
void draw_sweep_throughput_plot(const core::SweepResult& result, const SweepPlotOptions& options, ImVec2 size);

// Stacked horizontal bars at result.plan.sizes[size_index]: upload / kernel / download for a GPU
// backend (their medians, summed to the total written at the end), one compute segment for a CPU
// backend; the host launch enqueue from `launch` as a thin bar under the kernel, since it overlaps.
void draw_phase_breakdown(const core::SweepResult& result, std::size_t size_index, const gpu::LaunchCosts& launch,
                          float width);

// Machine, GPU, versions, op and sweep range: the facts the numbers need.
std::vector<std::string> sweep_caption_lines(const core::SweepResult& result, std::string_view lesson_title);

// Elements per second with an SI prefix: "1.25 G/s".
std::string format_rate(double per_second);

}  // namespace gpulab::app
