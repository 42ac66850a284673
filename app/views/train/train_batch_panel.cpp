// The batch-size tab: time per picture of a training step at batch 1, 16, 150 and 1024 for every
// engine, on log scales, and the table behind it (cells an engine skipped or could not run say
// why). The same number of pictures go through at every batch size, unless a cell's time cap stops
// it early (the table's pictures column says so).
#include <algorithm>
#include <cstdio>

#include "measure/format.h"
#include "gpu_model/gpu_model.h"
#include "views/timing_plot.h"
#include "views/xy_plot.h"
#include "train_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void TrainView::draw_batch_panel(float width) {
    const TrainPlan plan = batch_ ? batch_->plan : effective_plan();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::Text("Batch size: %s training pictures through forward, backward and update at every batch size (after "
                "one warm-up batch; at most %s per cell).",
                core::format_count(plan.batch_images).c_str(), core::format_duration(plan.batch_budget_ns).c_str());
    ImGui::PopTextWrapPos();
    const bool running = host_.jobs->busy() && host_.jobs->label() == "batch sizes";
    if (running) ImGui::ProgressBar(host_.jobs->progress(), {width * 0.6f, 0}, host_.jobs->stage().c_str());
    if (!batch_) {
        if (!running) ImGui::TextColored(kMutedColour, "Nothing measured yet: press Run (R).");
        return;
    }
    XYPlot plot{"time per picture (us)", "batch size", "(log scales; lower is better)"};
    plot.log_x = plot.log_y = true;
    std::vector<std::string> notes;
    for (const auto& c : batch_->cells) {
        auto it = std::find_if(plot.series.begin(), plot.series.end(), [&](const PlotSeries& s) { return s.name == c.engine; });
        if (c.ran && c.images > 0) {
            if (it == plot.series.end()) {
                plot.series.push_back(backend_series(c.engine, c.engine, true));
                it = plot.series.end() - 1;
            }
            it->points.push_back({static_cast<float>(c.batch), static_cast<float>(c.ns_per_image() / 1000.0)});
        } else if (!c.reason.empty()) {
            const std::string plain = core::plain_gpu_reason(c.reason);
            notes.push_back(c.engine + " at batch " + std::to_string(c.batch) + ": " + (plain.empty() ? c.reason : plain));
        }
    }
    draw_xy_plot(plot, {width * 0.55f, ImGui::GetFontSize() * 16});
    ImGui::SameLine();
    ImGui::BeginGroup();
    if (ImGui::BeginTable("##batch", 4, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("engine");
        ImGui::TableSetupColumn("batch");
        ImGui::TableSetupColumn("pictures");
        ImGui::TableSetupColumn("per picture");
        ImGui::TableHeadersRow();
        for (const auto& c : batch_->cells) {
            if (!c.ran) continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(backend_color(c.engine)), "%s", c.engine.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(c.batch));
            ImGui::TableNextColumn();
            // Fewer than the plan's when the cell's time cap stopped it early.
            ImGui::Text("%s", core::format_count(c.images).c_str());
            if (c.images < plan.batch_images) hover_tip("stopped at the time cap; time per picture is over these");
            ImGui::TableNextColumn();
            ImGui::Text("%s", core::format_duration(static_cast<std::int64_t>(c.ns_per_image())).c_str());
        }
        ImGui::EndTable();
    }
    ImGui::EndGroup();
    // One line per engine that could not run, not one per cell.
    std::vector<std::string> shown;
    for (const auto& n : notes) {
        const std::string engine = n.substr(0, n.find(' '));
        const bool skip_like = n.find("skipped") != std::string::npos;
        if (!skip_like && std::find(shown.begin(), shown.end(), engine) != shown.end()) continue;
        shown.push_back(engine);
        ImGui::TextColored(kMutedColour, "%s", skip_like ? n.c_str() : (engine + ": " + n.substr(n.find(": ") + 2)).c_str());
    }
}

}  // namespace gpulab::app
