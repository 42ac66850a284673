// The latency lesson's comparison with another machine: loading its exported <lesson>-sweep.csv,
// the legend naming both machines above the throughput plot in the Timing window, and, when the
// other machine swept a different op, a red line saying so (the curves are still drawn: the sizes
// where each machine's GPU starts to win are worth seeing even then). The curves themselves are
// drawn by app/views/latency/sweep_plot.cpp from SweepPlotOptions::other. Checked by compare.latency_* tests and
// by eye in the exported PNG and the GUI screenshot.
#include "views/compare_view.h"
#include "latency_view.h"

namespace gpulab::app {

bool LatencyView::load_comparison(const std::string& path, std::string& error) {
    return load_other_machine(path, "latency", core::sweep_comparison, host_, other_, error);
}

std::string LatencyView::comparison_mismatch() const {
    if (!other_ || !result_) return {};
    const std::string mine(core::activation_label(result_->sweep.activation));
    if (other_->op.empty() || other_->op == mine) return {};
    return "not the same op: this machine swept " + mine + ", the other machine " + other_->op;
}

void LatencyView::draw_comparison_legend(float width) const {
    draw_compare_legend(*other_, CompareSwatch::Lines, comparison_mismatch(), width);
}

}  // namespace gpulab::app
