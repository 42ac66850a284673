// The Timing window: the reusable timing module (app/timing_plot.h) plus a one-line summary of
// what was measured. The export draws the same module with a caption block.
#include "format.h"
#include "shell.h"
#include "ui_helpers.h"

namespace gpulab::app {

void Shell::draw_timing() {
    const core::ActivationRun* run = last_run_.get();
    if (run && run->ok) {
        ImGui::TextColored(kMutedColour, "%s on %s elements (%s), %d samples per backend after warm-up",
                           run->op.label().c_str(), core::format_pow2(run->input.size()).c_str(),
                           core::format_bytes(static_cast<double>(run->input.bytes())).c_str(),
                           run->reports.empty() ? 0 : run->reports.front().total.samples);
    }
    const float plot_h = std::max(ImGui::GetContentRegionAvail().y * 0.24f, ImGui::GetFontSize() * 6.0f);
    draw_timing_panel(run, history_, plot_h);
}

}  // namespace gpulab::app
