// The race tab: every engine trained for the same seconds, one after the other, as test accuracy
// against seconds (a point per epoch); a table of engines with images/s, or the reason one could not
// run; the speed-up against the fastest CPU engine (never the plain loop), and the article's ratio
// beside it, labelled as the article's (another model, train/article_figures.h).
#include <algorithm>
#include <cstdio>

#include "measure/format.h"
#include "gpu_model/gpu_model.h"
#include "views/timing_plot.h"
#include "views/xy_plot.h"
#include "train_view.h"
#include "widgets/paged_text.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// The first batches' loss on every engine that ran, against the batch number: one curve, drawn as
// many times as there are engines. Same weights, same batches, same arithmetic up to rounding: the
// engines differ only in how fast they get there, which the accuracy-against-seconds plot shows.
// Batches every engine that ran got through; the plain loop, which only runs a few, is drawn for as
// many as it has rather than shortening everyone's curve. Below 2 there is no curve to draw.
std::size_t common_batches(const std::vector<train::LaneResult>& lanes) {
    std::size_t common = 0;
    bool first = true;
    for (const auto& l : lanes) {
        if (!l.ran || l.batch_loss.empty() || l.engine == train::kPlainLoop) continue;
        common = first ? l.batch_loss.size() : std::min(common, l.batch_loss.size());
        first = false;
    }
    return common;
}

void draw_same_curve_plot(const std::vector<train::LaneResult>& lanes, float width, float height) {
    const std::size_t common = common_batches(lanes);
    if (common < 2) return;
    XYPlot plot{"loss of each batch", "batch", "(every engine: the same curve, up to rounding)"};
    plot.y_min = 0.0f;
    plot.x_min = 1.0f;
    plot.x_max = static_cast<float>(common);
    float thickness = 5.0f;  // thinner on top, so each engine stays visible under the next
    for (const auto& l : lanes) {
        if (!l.ran || l.batch_loss.empty()) continue;
        PlotSeries s = backend_series(l.engine, l.engine, false, thickness);
        for (std::size_t b = 0; b < std::min(common, l.batch_loss.size()); ++b) s.points.push_back({static_cast<float>(b + 1), l.batch_loss[b]});
        plot.series.push_back(std::move(s));
        thickness = std::max(thickness - 1.5f, 1.5f);
    }
    draw_xy_plot(plot, {width, height});
}

// Heights of the accuracy plot and, when it is drawn, the loss plot below it. Full size (16 and 9
// lines) where the panel has room; where it has not (presenter mode on a 1080p projector leaves
// about 12 lines here) they share what is visible, down to 7 and 5 lines, so that both are seen
// without scrolling. The table under them may scroll.
struct RaceHeights {
    float accuracy, loss;
};
RaceHeights race_plot_heights(float visible, bool with_loss) {
    const float fs = ImGui::GetFontSize();
    const float gap = ImGui::GetStyle().ItemSpacing.y;
    const float full_accuracy = fs * 16, full_loss = with_loss ? fs * 9 : 0.0f;
    const float room = visible - (with_loss ? 2 * gap : gap);
    if (room >= full_accuracy + full_loss) return {full_accuracy, full_loss};
    const float share = std::max(room, 0.0f) / (full_accuracy + full_loss);
    return {std::max(full_accuracy * share, fs * 7), with_loss ? std::max(full_loss * share, fs * 5) : 0.0f};
}

}  // namespace

void TrainView::draw_race_panel(float width) {
    const TrainPlan plan = race_ ? race_->plan : effective_plan();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::Text("The race: every engine trains the same model from the same weights on the same batches of %lld for "
                "%s of training time, one after the other (the plain loop: %s).",
                static_cast<long long>(plan.batch), core::format_duration(plan.race_budget_ns).c_str(),
                core::format_duration(std::min(plan.race_scalar_budget_ns, plan.race_budget_ns)).c_str());
    ImGui::TextColored(kMutedColour,
                       "Epochs of %s pictures; test accuracy on %s held-out pictures after each, outside the clock.",
                       core::format_count(plan.race_images).c_str(), core::format_count(plan.race_test_images).c_str());
    ImGui::PopTextWrapPos();
    const bool racing = host_.jobs->busy() && host_.jobs->label() == "race";
    if (racing) {
        ImGui::ProgressBar(host_.jobs->progress(), {width * 0.6f, 0}, host_.jobs->stage().c_str());
        ImGui::SameLine();
        ImGui::BeginDisabled(host_.jobs->cancelling());
        if (ImGui::Button("Stop")) host_.jobs->cancel();
        ImGui::EndDisabled();
    }
    if (!race_ && !racing) {
        ImGui::TextColored(kMutedColour, "Nothing raced yet: press Race (R).");
        return;
    }
    if (race_hidden() && !racing) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kMutedColour, "A race has run already. Make your prediction first: the race and its answer "
                                         "appear as soon as you pick one.");
        ImGui::PopTextWrapPos();
        return;
    }
    XYPlot plot{"test accuracy", "seconds of training", "(a dot per epoch)"};
    plot.y_min = 0.0f;
    plot.y_max = 1.0f;
    plot.y_percent = true;
    plot.legend_bottom = true;
    plot.x_min = 0.0f;
    plot.x_max = static_cast<float>(plan.race_budget_ns * 1e-9) * 1.05f;
    if (race_ && !racing) {
        for (const auto& l : race_->lanes) {
            if (!l.ran) continue;
            PlotSeries s = backend_series(l.engine, l.engine, true);
            s.points.push_back({0.0f, 0.1f});  // chance before the first step
            for (const auto& p : l.points)
                s.points.push_back({static_cast<float>(p.seconds), static_cast<float>(p.test_accuracy)});
            plot.series.push_back(std::move(s));
        }
    }
    if (racing) {
        const train::LiveSnapshot live = live_->snapshot();
        for (const auto& lane : live.earlier) {
            PlotSeries done = backend_series(lane.engine, lane.engine, true);
            done.points.push_back({0.0f, 0.1f});
            for (const auto& e : lane.epochs) done.points.push_back({static_cast<float>(e.seconds), static_cast<float>(e.accuracy)});
            plot.series.push_back(std::move(done));
        }
        PlotSeries s = backend_series(live.engine + " (running)", live.engine, true);
        s.points.push_back({0.0f, 0.1f});
        for (const auto& e : live.epochs) s.points.push_back({static_cast<float>(e.seconds), static_cast<float>(e.accuracy)});
        plot.series.push_back(std::move(s));
    }
    const bool with_loss = race_ && !racing && common_batches(race_->lanes) >= 2;
    const float avail = ImGui::GetContentRegionAvail().y;
    if (!race_ || racing) {
        draw_xy_plot(plot, {width, race_plot_heights(avail, with_loss).accuracy});
        return;
    }
    // Two parts (issue 41): the plots, then the table and the speed-ups. Where both fit they show
    // together, the plots taking what the rest (its height in the last frame) leaves; on a short
    // canvas (1366 x 768) the plots get a page of their own and the rest the next, never a scroll.
    const float gap = ImGui::GetStyle().ItemSpacing.y;
    const float parts_row = ImGui::GetFrameHeight() + gap * 3.0f + ImGui::GetFontSize();  // paged_text.cpp's row
    RaceHeights heights = race_plot_heights(avail - race_rest_h_ - gap, with_loss);
    if (heights.accuracy + heights.loss + 2 * gap + race_rest_h_ > avail)
        heights = race_plot_heights(avail - parts_row, with_loss);
    auto part = [&](int i) {
        if (i == 0) {
            draw_xy_plot(plot, {width, heights.accuracy});
            draw_same_curve_plot(race_->lanes, width, heights.loss);
            return;
        }
        const float top = ImGui::GetCursorPosY();
        draw_race_results(width);
        race_rest_h_ = ImGui::GetCursorPosY() - top;
    };
    draw_paged_parts(2, part, race_part_, /*arrow_keys=*/false);
}

// The race's table, the whole race's time, the speed-ups as bars and another machine's race.
void TrainView::draw_race_results(float width) {
    if (ImGui::BeginTable("##race", 6, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("engine");
        // What each engine multiplies in (issue 29): a TF32 or BF16 engine would be faster for it.
        ImGui::TableSetupColumn("precision");
        ImGui::TableSetupColumn("pictures/s");
        ImGui::TableSetupColumn("pictures");
        ImGui::TableSetupColumn("test accuracy");
        ImGui::TableSetupColumn("note", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        for (const auto& l : race_->lanes) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(backend_color(l.engine)), "%s", l.engine.c_str());
            ImGui::TableNextColumn();
            if (l.ran) {
                const std::string shown = l.precision.substr(0, l.precision.find_first_of(" ;"));
                ImGui::TextUnformatted(shown.c_str());
                if (shown != l.precision) hover_tip(l.precision.c_str());
            } else {
                ImGui::TextColored(kMutedColour, "-");
            }
            if (!l.ran) {
                ImGui::TableNextColumn();
                ImGui::TextColored(kMutedColour, "-");
                ImGui::TableNextColumn();
                ImGui::TableNextColumn();
                ImGui::TableNextColumn();
                // The driver's words go to the tooltip; the table says it plainly (core/gpu_model/gpu_model.h).
                const std::string plain = core::plain_gpu_reason(l.reason);
                // Wrapped inside the cell: the note column takes what the numbers leave, which on a
                // projector's large text is less than one line of the reason.
                ImGui::PushTextWrapPos(0.0f);
                ImGui::TextColored(kMutedColour, "not available: %s", (plain.empty() ? l.reason : plain).c_str());
                ImGui::PopTextWrapPos();
                if (!plain.empty()) hover_tip(l.reason.c_str());
                continue;
            }
            ImGui::TableNextColumn();
            ImGui::Text("%s", core::format_count(static_cast<std::int64_t>(l.images_per_second())).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%s", core::format_count(l.images).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.1f %%", 100.0 * l.final_test_accuracy());
            ImGui::TableNextColumn();
            std::string note = l.engine == train::kPlainLoop ? "the plain loop: teaches, never the CPU's number; " : "";
            note += l.reason;
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextColored(kMutedColour, "%s", note.c_str());
            ImGui::PopTextWrapPos();
        }
        ImGui::EndTable();
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kMutedColour, "The whole race took %s, test-set checks included.",
                       core::format_duration(race_->wall_ns).c_str());
    ImGui::TextUnformatted(race_->summary.text.c_str());
    // This machine's speed-up beside the article's, as two bars on one scale.
    const double article = train::ArticleFigures::speedup();
    const double here = race_->summary.speedup;
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const float label_w = lh * 13.0f, bar_max = std::max(width - label_w - lh * 24.0f, lh * 6.0f);
    const double scale_max = std::max(article, here) * 1.1;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    auto bar = [&](const char* label, double value, ImU32 colour, const std::string& text) {
        const ImVec2 o = ImGui::GetCursorScreenPos();
        dl->AddText(o, ImGui::GetColorU32(ImGuiCol_Text), label);
        const float w = static_cast<float>(value / scale_max) * bar_max;
        if (value > 0) dl->AddRectFilled({o.x + label_w, o.y + 2}, {o.x + label_w + w, o.y + lh - 4}, colour);
        dl->AddText({o.x + label_w + w + 6, o.y}, ImGui::GetColorU32(kMutedColour), text.c_str());
        ImGui::Dummy({width, lh});
    };
    ImGui::Spacing();
    ImGui::TextColored(kAccentColour, "GPU over the fastest CPU engine, training:");
    // The label says whose figure it is; the tooltip says which model, pictures and epochs.
    bar("the article's (another model)", article, IM_COL32(150, 150, 160, 255),
        train::article_speedup_text() + " (it says " + std::to_string(train::ArticleFigures::kQuotedSpeedup) +
            "x): RTX 3070 vs Ryzen 5 5600X");
    hover_tip((train::article_experiment_sentence() + " " + train::article_step_sentence() + " " +
               train::article_precision_sentence())
                  .c_str());
    if (here > 0) {
        const train::LaneResult& g = race_->lanes[static_cast<std::size_t>(race_->summary.fastest_gpu)];
        const train::LaneResult& c = race_->lanes[static_cast<std::size_t>(race_->summary.fastest_cpu)];
        bar("this machine (measured now)", here, backend_color(g.engine),
            core::format_ratio(here) + ": " + g.engine + " vs " + c.engine);
    } else {
        bar("this machine", 0.0, 0, "not measured: no GPU engine ran here (see the table)");
    }
    if (const core::ImportedTrain* other = comparison()) {
        // The other machine's race, judged by the same rule as this one's.
        const auto [cpu, gpu] = imported_race_leaders(*other);
        const bool recorded = !other->recorded_source.empty();
        const std::string label = recorded ? "recorded on " + other->gpu : "the other machine (imported)";
        if (cpu && gpu)
            bar(label.c_str(), gpu->images_per_second / cpu->images_per_second, backend_color(gpu->engine),
                core::format_ratio(gpu->images_per_second / cpu->images_per_second) + ": " + gpu->engine + " vs " +
                    cpu->engine + " on " + other->machine_label);
        else
            bar(label.c_str(), 0.0, 0, "not measured there: no GPU engine ran on " + other->machine_label);
        if (recorded) hover_tip((other->recorded_source + "; not this computer: both lanes of this ratio ran on " +
                                 other->machine_label).c_str());
    }
    ImGui::PopTextWrapPos();
    if (comparison()) draw_other_machine_race(width);  // a table: its cells must not wrap at the panel's edge
}

void TrainView::draw_other_machine_race(float) {
    const core::ImportedTrain* other = comparison();
    ImGui::Spacing();
    if (other->recorded_source.empty())
        ImGui::TextColored(kAccentColour, "Pictures per second, this machine beside %s (measured %s):",
                           other->machine_label.c_str(), other->date.c_str());
    else
        ImGui::TextColored(kAccentColour, "Pictures per second, this machine beside the %s (%s; not this computer):",
                           other->gpu.c_str(), other->recorded_source.c_str());
    if (!ImGui::BeginTable("##other_race", 4, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
    ImGui::TableSetupColumn("engine");
    ImGui::TableSetupColumn("here");
    ImGui::TableSetupColumn("there");
    ImGui::TableSetupColumn("there / here", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    auto rate = [](bool ran, double ips) { return ran && ips > 0 ? core::format_count(static_cast<std::int64_t>(ips)) : std::string("-"); };
    std::vector<std::string> engines;
    for (const auto& l : race_->lanes) engines.push_back(l.engine);
    for (const auto& l : other->race)
        if (std::find(engines.begin(), engines.end(), l.engine) == engines.end()) engines.push_back(l.engine);
    for (const std::string& e : engines) {
        const train::LaneResult* mine = nullptr;
        for (const auto& l : race_->lanes)
            if (l.engine == e) mine = &l;
        const core::ImportedTrainLane* theirs = other->find(e);
        const double here = mine && mine->ran ? mine->images_per_second() : 0.0;
        const double there = theirs && theirs->ran ? theirs->images_per_second : 0.0;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(backend_color(e)), "%s", e.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(rate(here > 0, here).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(rate(there > 0, there).c_str());
        ImGui::TableNextColumn();
        if (here > 0 && there > 0)
            ImGui::TextUnformatted(core::format_ratio(there / here).c_str());
        else
            ImGui::TextColored(kMutedColour, "%s", "not run on both");
    }
    ImGui::EndTable();
}

}  // namespace gpulab::app
