// The elementwise-activations Timing window: the reusable timing module (app/views/timing_plot.h) plus
// a one-line summary of what was measured, and another machine's bars when one was imported. The
// export draws the same module with a caption block. The layout is checked in the 1600x900,
// 1920x1080 and 1280x720 screenshots.
#include <algorithm>

#include "activation_view.h"
#include "measure/format.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void ActivationView::draw_timing() {
    const core::ActivationRun* run = last_run_.get();
    // Stays until a file loads, as the run's own messages in Controls are replaced by the next run.
    if (!other_error_.empty()) {
        ImGui::TextColored(kErrorColour, "compare: %s", other_error_.c_str());
        hover_tip(other_error_.c_str());
    }
    if (run && run->ok) {
        // Wrapped: at UI scale 2x the caption is wider than the Timing window.
        ImGui::PushTextWrapPos(0.0f);
        // Backends stop sampling at their own time budget, so the counts can differ: give the range.
        int fewest = 0, most = 0;
        for (const auto& r : run->reports) {
            if (!r.ran) continue;
            fewest = fewest == 0 ? r.total.samples : std::min(fewest, r.total.samples);
            most = std::max(most, r.total.samples);
        }
        const std::string samples =
            fewest == most ? std::to_string(most) : std::to_string(fewest) + "-" + std::to_string(most);
        ImGui::TextColored(kMutedColour, "%s on %s elements (%s), %s samples per backend after warm-up",
                           run->op.label().c_str(), core::format_pow2(run->input.size()).c_str(),
                           core::format_bytes(static_cast<double>(run->input.bytes())).c_str(), samples.c_str());
        ImGui::PopTextWrapPos();
        hover_tip((std::string("The bars below: ") + kMedianBarsHowToRead + ".").c_str());
        // Bars or table, one at a time (a laptop's panel holds one of them).
        ImGui::SameLine();
        if (ImGui::SmallButton(show_table_ ? "bars" : "table")) show_table_ = !show_table_;
        hover_tip(show_table_ ? "Back to the bars: each median, its spread and its share of the copy speed."
                              : "Every figure in a table: median and spread, throughput against the measured copy "
                                "limit, and each backend's check against cpu-scalar.");
    }
    // The rolling plot takes the height the bars and the table leave over (measured on the last
    // frame). It is the panel's least important part (the bars and the table carry the numbers), so
    // where it cannot have a few readable lines it is left out rather than making the panel scroll.
    const float avail = ImGui::GetContentRegionAvail().y;
    const float min_h = ImGui::GetFontSize() * 4.5f;
    const float max_h = std::max(avail * 0.45f, min_h);
    const float spare = avail - timing_rest_h_ - ImGui::GetStyle().ItemSpacing.y;
    const float plot_h = spare < min_h ? 0.0f : std::min(spare, max_h);
    const float y0 = ImGui::GetCursorPosY();
    draw_timing_panel(run, history_, plot_h, comparison(), /*compact=*/true, show_table_);
    // Everything but the plot and the spacing under it, so the choice above is the same next frame.
    timing_rest_h_ = ImGui::GetCursorPosY() - y0 - (plot_h > 0.0f ? plot_h + ImGui::GetStyle().ItemSpacing.y : 0.0f);
}

}  // namespace gpulab::app
