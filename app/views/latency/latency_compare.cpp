// The latency lesson's comparison with another machine: loading its exported <lesson>-sweep.csv,
// the legend naming both machines above the throughput plot in the Timing window, and, when the
// other machine swept a different op, a red line saying so (the curves are still drawn: the sizes
// where each machine's GPU starts to win are worth seeing even then). The curves themselves are
// drawn by app/views/latency/sweep_plot.cpp from SweepPlotOptions::other. Checked by compare.latency_* tests and
// by eye in the exported PNG and the GUI screenshot.
#include "views/compare_view.h"
#include "latency_view.h"

#include <cmath>
#include <cstdio>

#include "measure/format.h"
#include "views/export.h"
#include "workloads/latency_sweep.h"

namespace gpulab::app {

bool LatencyView::load_comparison(const std::string& path, std::string& error) {
    return load_other_machine(path, "latency", core::sweep_comparison, host_, other_, error);
}

namespace {

// Where the recording has no sweep of this op and no GPU ran here: our kernel's time at every size of
// the sweep on the estimated GPU (core/gpu_model/gpu_estimate.h: input and output once, each copied),
// labelled as an estimate. Null when a GPU backend ran here.
std::unique_ptr<core::ImportedSweep> estimated_sweep(const core::SweepResult& r) {
    for (std::size_t b = 0; b < r.backends.size(); ++b)
        if (r.kinds[b] == core::BackendKind::Gpu)
            for (const auto& c : r.cells[b])
                if (c.ran) return nullptr;
    const core::PublishedGpu& gpu = estimated_gpu();
    auto out = std::make_unique<core::ImportedSweep>();
    core::mark_as_estimate(*out, gpu);
    out->op = core::activation_label(r.activation);
    core::ImportedSweepSeries s;
    s.backend = "cuda-kernel";
    for (const int64_t n : r.plan.sizes) {
        core::KernelWork work;
        work.upload_bytes = work.download_bytes = n * static_cast<int64_t>(sizeof(float));
        work.data_bytes = 2 * work.upload_bytes;
        const core::GpuEstimate e = core::estimate_gpu_time(work, gpu);
        s.elements.push_back(n);
        s.median_ns.push_back(e.total_ns());
        s.compute_ns.push_back(e.kernel_ns);
    }
    if (s.elements.empty()) return nullptr;
    out->series.push_back(std::move(s));
    return out;
}

}  // namespace

const core::ImportedSweep* LatencyView::comparison() const {
    if (other_) return other_.get();
    if (!result_) return nullptr;
    const std::string op(core::activation_label(result_->sweep.activation));
    return recorded_.get(op, [&] {
        auto m = recorded_match<core::ImportedSweep>("latency", core::sweep_comparison,
                                                     [&](const core::ImportedSweep& s) { return s.op == op; });
        // Its GPU curves only: the recording computer's CPU is not the one a student compares with.
        if (m) std::erase_if(m->series, [](const core::ImportedSweepSeries& c) { return !core::recorded_gpu_backend(c.backend); });
        if (m && m->series.empty()) m.reset();
        return m ? std::move(m) : estimated_sweep(result_->sweep);
    });
}

std::string LatencyView::recorded_crossover_text() const {
    const core::ImportedSweep* other = comparison();
    if (!result_ || !other || other->recorded_source.empty()) return {};
    const core::SweepResult& r = result_->sweep;
    if (r.plan.sizes.empty() || !core::sweep_crossover(r).gpu_backend.empty()) return {};  // this machine's own GPU says it
    const core::ImportedSweepSeries& gpu = other->series.front();
    const std::optional<double> n = core::crossover_against(r, gpu.elements, gpu.median_ns);
    const std::string who = other->estimate ? "an estimated " + gpu.backend + " on an " + other->gpu + " (a model)"
                                            : "the recorded " + gpu.backend + " (" + other->gpu + ", another computer)";
    if (!n)
        return who + " never beats this CPU between " + core::format_pow2(r.plan.sizes.front()) + " and " +
               core::format_pow2(r.plan.sizes.back()) +
               (other->estimate ? " (an estimate, not a measurement; copies included)" : " (two computers; copies included)");
    char buf[96];
    std::snprintf(buf, sizeof buf, " beats this CPU above N = 2^%.1f (%s; copies included)", std::log2(*n),
                  other->estimate ? "an estimate, not a measurement" : "two computers");
    return who + buf;
}

std::string LatencyView::sweep_csv_with_recording(const core::SweepResult& sweep,
                                                  const std::vector<std::string>& caption) const {
    const core::ImportedSweep* other = comparison();
    core::RecordedSweepRows rows;
    if (other && !other->recorded_source.empty()) {
        rows.source = other->recorded_source;
        for (const core::ImportedSweepSeries& c : other->series) {
            rows.backends.push_back(c.backend);
            rows.elements.push_back(c.elements);
            rows.median_ns.push_back(c.median_ns);
        }
    }
    return core::sweep_csv(sweep, caption, shown_result_source(), rows.backends.empty() ? nullptr : &rows);
}

std::string LatencyView::comparison_mismatch() const {
    const core::ImportedSweep* other = comparison();
    if (!other || !result_) return {};
    const std::string mine(core::activation_label(result_->sweep.activation));
    if (other->op.empty() || other->op == mine) return {};
    return "not the same op: this machine swept " + mine + ", the " + other_name(*other) + " " + other->op;
}

void LatencyView::draw_comparison_legend(float width) const {
    draw_compare_legend(*comparison(), CompareSwatch::Lines, comparison_mismatch(), width);
}

}  // namespace gpulab::app
