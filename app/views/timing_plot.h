// The timing panel as a reusable module, drawn with ImDrawList (ImPlot is not available): a
// rolling history of every sample per backend, a bar chart of medians with min-max whiskers and
// speed-ups against cpu-scalar, GB/s against the limit measured in the same run, and the
// correctness verdict. The GUI and the exported PNG call the same functions, so the picture in a
// report is the picture on screen (checked by the export test's PNG check and by eye). With an
// imported summary from another machine (core/compare/compare_import.h) each backend gets a second,
// outlined and hatched bar beside the live one (tests/compare_tests.cmake).
#pragma once

#include <imgui.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare_import.h"
#include "workloads/activation_workload.h"

namespace gpulab::app {

// One colour per backend name, the same in every plot, legend and export.
ImU32 backend_color(std::string_view backend, float alpha = 1.0f);

// Ring buffer of recent sample times (ms) per backend, fed by every finished run.
class SampleHistory {
public:
    static constexpr std::size_t kCapacity = 240;
    struct Series {
        std::string backend;
        std::vector<float> ms;  // ring storage, oldest at `head` once full
        std::size_t head = 0;
        std::size_t count() const { return ms.size(); }
        float at(std::size_t i) const { return ms[(head + i) % ms.size()]; }  // 0 = oldest
    };
    void add_run(const core::ActivationRun& run);
    void clear() { series_.clear(); }
    const std::vector<Series>& series() const { return series_; }
    bool empty() const;

private:
    std::vector<Series> series_;
};

// The facts a number needs to be trusted: machine, GPU, versions, size, op, date, version.
std::vector<std::string> caption_lines(const core::ActivationRun& run, std::string_view lesson_title);

// `text` cut at a word, with an ellipsis, so that it fits `width` on one line; unchanged when it fits.
std::string fit_line(const std::string& text, float width);

// "match (max abs 2e-07)" in green, "MISMATCH ..." in red, "not run: reason" in grey.
void draw_verdict(const core::BackendReport& report);
// "not run: no GPU here" rather than the driver's error code on a machine without a GPU: the Devices
// panel says once why, in a student's words, and a tooltip keeps the exact error; other reasons as
// they are.
std::string not_run_line(const std::string& reason);

void draw_caption_block(const std::vector<std::string>& lines);
void draw_history_plot(const SampleHistory& history, ImVec2 size);
// `other`: another machine's medians drawn under the live bars (outlined, hatched); may be null.
// `compact`: each row's value adds its share of the copy speed and a failed check, the table's
// other figures in the row's tooltip.
void draw_median_bars(const core::ActivationRun& run, float width, const core::ImportedRun* other = nullptr,
                      bool compact = false);
void draw_throughput_table(const core::ActivationRun& run);

// How to read the median bars, in words (the export prints it; the window keeps it in a tooltip).
extern const char* const kMedianBarsHowToRead;
// Everything above in one column; `run` may be null (nothing measured yet), `other` too (no comparison).
// `compact` (the window): the how-to-read line goes to the caller's tooltip, a recording's or
// estimate's legend shares one line with this machine's, and the panel holds the compact bars or,
// with `show_table`, the table.
void draw_timing_panel(const core::ActivationRun* run, const SampleHistory& history, float plot_height,
                       const core::ImportedRun* other = nullptr, bool compact = false, bool show_table = false);

// [SECTION] comparison with another machine
// "<cpu>, <gpu or no GPU>" for this process's machine, the words an imported label uses.
std::string this_machine_label();
// Caption lines naming both machines, plus a warning line when the op or size differ; for the
// exported timing PNG and the legend above the bars.
std::vector<std::string> comparison_caption_lines(const core::ActivationRun& run, const core::ImportedRun& other);
// "" when the other machine measured the same op on the same size, else what differs.
std::string comparison_mismatch(const core::ActivationRun& run, const core::ImportedRun& other);

// "result matches cpu-scalar; simulated on the CPU in 1.2 s (not a GPU speed)": how a simulated
// backend's row reads wherever a time would stand (core::kind_is_timed false).
std::string simulated_time_text(const core::BackendReport& report);

// Speed-up of `report` against cpu-scalar's median in the same run; 0 when unknown and for a
// simulated backend (its time is not a speed).
double speedup_vs_scalar(const core::ActivationRun& run, const core::BackendReport& report);

}  // namespace gpulab::app
