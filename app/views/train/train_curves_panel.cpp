// The train tab: what Train does (engine, subset, epochs, batch, the time budget, said in words),
// the updates per epoch that batch means and the learning rate, a progress bar with Stop, images/s
// and time per batch, the live loss and accuracy curves from the worker's LiveLog (a copy per
// frame), or the last finished run's, with a dot where the learning rate was turned during the run,
// and one test picture's softmax and loss (train_one_picture.cpp).
#include <algorithm>
#include <cstdio>

#include "measure/format.h"
#include "train/learning_knobs.h"
#include "views/timing_plot.h"
#include "views/xy_plot.h"
#include "train_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// Running mean over the last `window` batches: one batch's accuracy jumps by a few percent.
std::vector<ImVec2> smoothed(const std::vector<train::LivePoint>& pts, std::size_t window, bool accuracy) {
    std::vector<ImVec2> out;
    double sum = 0.0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
        sum += accuracy ? pts[i].accuracy : pts[i].loss;
        if (i >= window) sum -= accuracy ? pts[i - window].accuracy : pts[i - window].loss;
        const double n = static_cast<double>(std::min(i + 1, window));
        out.push_back({static_cast<float>(pts[i].seconds), static_cast<float>(sum / n)});
    }
    return out;
}

}  // namespace

void TrainView::draw_train_panel(float width) {
    const TrainPlan plan = effective_plan();
    const bool plain = plan.backend == train::kPlainLoop;
    const bool simulated = plan.backend == "cuda-sim";
    ImGui::PushTextWrapPos(0.0f);
    if (simulated) {
        ImGui::TextColored(kAccentColour,
                           "Train: cuda-sim, the GPU engine's own CUDA kernels (convolutions, pooling, the tiled matrix "
                           "multiply, loss and update) run thread by thread by the simulator on this CPU: %lld batches "
                           "of %lld. The curves should follow the CPU's; the clock is the simulator's, never a GPU "
                           "speed.",
                           static_cast<long long>(plan.scalar_batches), static_cast<long long>(plan.batch));
    } else if (plain) {
        ImGui::TextColored(kAccentColour,
                           "Train: %s, the plain loop. It manages only tens of pictures per second, far too slow for an "
                           "epoch (60,000 pictures took half an hour on the developers' busy 2-core machine: an estimate "
                           "for yours), so it runs %lld batches of %lld.",
                           plan.backend.c_str(), static_cast<long long>(plan.scalar_batches),
                           static_cast<long long>(plan.batch));
    } else {
        ImGui::Text("Train: %s, %d epoch%s over the first %s of the 60,000 training pictures, batch %lld.",
                    plan.backend.c_str(), plan.epochs, plan.epochs == 1 ? "" : "s",
                    core::format_count(plan.images).c_str(), static_cast<long long>(plan.batch));
        ImGui::TextColored(kMutedColour,
                           "A subset, and a stop after %s whatever the epochs say, so a run fits a class on a 2-core "
                           "machine; the results are measured on %s held-out pictures.",
                           core::format_duration(plan.budget_ns).c_str(), core::format_count(plan.eval_images).c_str());
    }
    // Cause and effect: the batch sets how many updates an epoch makes, the rate how far each goes.
    const std::int64_t epoch_images = plain || simulated ? plan.scalar_batches * plan.batch : plan.images;
    const std::int64_t updates = train::updates_per_epoch(epoch_images, plan.batch);
    ImGui::Text("Batch %lld: %s updates per %s of %s pictures (ceil(%s / %lld), arithmetic). Learning rate %s: "
                "turn it while it trains.",
                static_cast<long long>(plan.batch), core::format_count(updates).c_str(),
                plain || simulated ? "run" : "epoch", core::format_count(epoch_images).c_str(),
                core::format_count(epoch_images).c_str(), static_cast<long long>(plan.batch),
                train::format_learning_rate(plan.learning_rate).c_str());
    hover_tip("A bigger batch: fewer updates per epoch, each averaged over more pictures. A bigger learning rate: "
              "longer steps, until they overshoot and the loss jumps. Both sliders are under Controls.");
    ImGui::PopTextWrapPos();

    const bool training = host_.jobs->busy() && host_.jobs->label().rfind("training", 0) == 0;
    const train::LiveSnapshot s = training ? live_->snapshot() : train_ ? train_->curves : train::LiveSnapshot{};
    if (training) {
        ImGui::ProgressBar(host_.jobs->progress(), {width * 0.6f, 0}, host_.jobs->stage().c_str());
        ImGui::SameLine();
        ImGui::BeginDisabled(host_.jobs->cancelling());
        if (ImGui::Button("Stop")) host_.jobs->cancel();
        ImGui::EndDisabled();
        hover_tip("Stops after the batch that is running; the curves and the results keep what it learnt so far.");
    }
    if (s.batches.empty()) {
        ImGui::TextColored(kMutedColour, "%s",
                           training ? "starting: the first batch is on its way"
                                    : "Nothing trained yet: press Train (R). The window stays live while it runs.");
        return;
    }
    if (s.engine == "cuda-sim")
        ImGui::Text("%s: %s pictures, simulated on the CPU in %s (the simulator's time, not a GPU speed)",
                    s.engine.c_str(), core::format_count(s.images).c_str(),
                    core::format_duration(static_cast<std::int64_t>(s.batches.back().seconds * 1e9)).c_str());
    else
        ImGui::Text("%s: %s pictures in %s, %s pictures/s, last batch %s", s.engine.c_str(),
                    core::format_count(s.images).c_str(),
                    core::format_duration(static_cast<std::int64_t>(s.batches.back().seconds * 1e9)).c_str(),
                    core::format_count(static_cast<std::int64_t>(s.images_per_second)).c_str(),
                    core::format_duration(s.last_batch_ns).c_str());
    if (!training && train_ && !train_->lane.reason.empty())
        ImGui::TextColored(kMutedColour, "(%s)", train_->lane.reason.c_str());

    const ImU32 c = backend_color(s.engine);
    // Near white, apart from every backend colour in both palettes (it marks "the epochs", not "ok").
    const ImU32 test_colour = IM_COL32(235, 235, 240, 255);
    // cuda-sim's clock is the simulator's: its axis says so, never "seconds of training".
    const char* x_axis = s.engine == "cuda-sim" ? "simulated seconds (the CPU's, not a GPU's)" : "seconds of training";
    XYPlot loss{"loss", x_axis, "(cross-entropy, mean of the last 10 batches; dots: epochs)"};
    loss.series.push_back({"per batch", c, smoothed(s.batches, 10, false)});
    PlotSeries epochs{"epoch mean", test_colour, {}, true};
    for (const auto& e : s.epochs) epochs.points.push_back({static_cast<float>(e.seconds), static_cast<float>(e.loss)});
    loss.series.push_back(epochs);
    // Where the learning rate was turned during this run: a dot on the curve, the first one named.
    if (!rate_marks_.empty()) {
        const std::vector<ImVec2> curve = loss.series.front().points;
        for (std::size_t k = 0; k < rate_marks_.size(); ++k) {
            const auto at = std::lower_bound(curve.begin(), curve.end(), static_cast<float>(rate_marks_[k].seconds),
                                             [](const ImVec2& p, float x) { return p.x < x; });
            if (at == curve.end()) continue;
            loss.series.push_back({k == 0 ? "learning rate turned" : "", ImGui::GetColorU32(kErrorColour), {*at}, true});
        }
    }
    XYPlot acc{"accuracy", x_axis, "(train: last 10 batches; test: held-out pictures after each epoch)"};
    acc.y_min = 0.0f;
    acc.y_max = 1.0f;
    acc.y_percent = true;
    acc.legend_bottom = true;
    acc.series.push_back({"train batches", c, smoothed(s.batches, 10, true)});
    PlotSeries test{"test", test_colour, {}, true};
    for (const auto& e : s.epochs) test.points.push_back({static_cast<float>(e.seconds), static_cast<float>(e.accuracy)});
    acc.series.push_back(test);
    const float h = std::clamp(ImGui::GetContentRegionAvail().y - 8.0f, ImGui::GetFontSize() * 12, ImGui::GetFontSize() * 18);
    // The test picture, once a run has weights: a column beside the plots where the canvas is wide,
    // under them where it is not (the plots would be too narrow to read).
    const bool picture = train_ && !probe_probs_.empty();
    const float lh = ImGui::GetTextLineHeight();
    const bool beside = picture && width >= lh * 50;
    const float picture_w = beside ? std::min(width * 0.3f, lh * 17) : std::min(width, lh * 24);
    const float plot_w = (width - (beside ? picture_w + 12.0f : 0.0f)) * 0.5f - 6;
    draw_xy_plot(loss, {plot_w, h});
    ImGui::SameLine();
    draw_xy_plot(acc, {plot_w, h});
    if (beside) ImGui::SameLine(0, 12.0f);
    if (picture) {
        ImGui::BeginGroup();
        draw_one_picture(picture_w);
        ImGui::EndGroup();
    }
}

}  // namespace gpulab::app
