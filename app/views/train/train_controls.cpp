// The training view's canvas tabs, its controls (engine, pictures per epoch, epochs, batch, the
// learning rate, live while Train runs, race seconds, and one Run button whose name says what the
// open tab runs) and its Timing window (the
// step's predict prompt with the race's answer, then the numbers of every run so far).
#include <algorithm>
#include <cstdio>

#include "measure/format.h"
#include "train/learning_knobs.h"
#include "views/timing_plot.h"
#include "train_view.h"
#include "views/run_row.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

const std::vector<std::string> kEngines = {"cpu-parallel", "cpu-onednn", "cpu-scalar", "cuda-kernel", "cudnn", "cuda-sim"};

}  // namespace

void TrainView::draw_canvas() {
    static const PanelTab<Panel> kTabs[] = {
        {"Model", Panel::Model, "Every layer with its output shape, parameters and work per picture."},
        {"Samples", Panel::Samples, "Training pictures of every class, as the network sees them."},
        {"Train", Panel::Train, "Train one engine: live loss and accuracy, pictures per second."},
        {"Race", Panel::Race, "Every engine trains for the same seconds: test accuracy against time."},
        {"Peaks and roofline", Panel::Roofline,
         "The article's CPU and GPU from their published specs, this machine measured, and a roofline estimate of "
         "the model per layer: what the hardware allows."},
        {"Where the time goes", Panel::Layers, "Time per picture split by layer, forward and backward."},
        {"Batch size", Panel::Batch, "Time per picture at batch 1, 16, 150 and 1024."},
        {"Results", Panel::Results, "Test accuracy, the confusion matrix, predictions, a dropped picture."},
    };
    draw_panel_tabs("##train_panels", kTabs, panel_, select_panel_, 0, [this](Panel panel) {
        const float w = ImGui::GetContentRegionAvail().x;
        switch (panel) {
            case Panel::Model: draw_model_panel(w); break;
            case Panel::Samples: draw_samples_panel(w); break;
            case Panel::Train: draw_train_panel(w); break;
            case Panel::Race: draw_race_panel(w); break;
            case Panel::Roofline: draw_roofline_panel(w); break;
            case Panel::Layers: draw_layers_panel(w); break;
            case Panel::Batch: draw_batch_panel(w); break;
            case Panel::Results: draw_results_panel(w); break;
        }
    });
}

void TrainView::draw_controls() {
    const float label_w = ImGui::GetFontSize() * 8.0f;
    ImGui::PushItemWidth(-label_w);
    if (ImGui::BeginCombo("engine", plan_.backend.c_str())) {
        for (const std::string& e : kEngines)
            if (ImGui::Selectable(e.c_str(), e == plan_.backend)) plan_.backend = e;
        ImGui::EndCombo();
    }
    hover_tip("The engine Train uses. cpu-scalar is the plain loop: too slow for epochs, so it runs a few batches. "
              "cuda-sim runs the GPU engine's own CUDA kernels on this CPU, in the simulator: a few batches, to see "
              "they learn like the CPU does; its time is the simulator's, never a GPU speed. "
              "GPU engines that this machine or build cannot run say why when you train.");
    int images = static_cast<int>(plan_.images);
    if (ImGui::SliderInt("pictures/epoch", &images, 600, 60000, "%d", ImGuiSliderFlags_AlwaysClamp))
        plan_.images = images;
    hover_tip("How many of the 60,000 training pictures one epoch uses (the first ones). The whole set took 38-49 s "
              "per epoch on cpu-parallel on a busy 2-core machine (an estimate for yours: the developers' "
              "measurement, docs/benchmarks.md).");
    ImGui::SliderInt("epochs", &plan_.epochs, 1, 20, "%d", ImGuiSliderFlags_AlwaysClamp);
    hover_tip("Passes over those pictures. Train stops at its time budget whatever this says.");
    int batch = static_cast<int>(plan_.batch);
    if (ImGui::SliderInt("batch", &batch, 1, 1024, "%d", ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic))
        plan_.batch = batch;
    hover_tip("Pictures per training step, for Train and the race. The article used 150. A bigger batch means "
              "fewer weight updates per epoch: the Train tab counts them.");
    draw_learning_rate();
    int budget = static_cast<int>(plan_.race_budget_ns / 1'000'000'000);
    if (ImGui::SliderInt("race seconds", &budget, 1, 120, "%d s per engine", ImGuiSliderFlags_AlwaysClamp))
        plan_.race_budget_ns = static_cast<std::int64_t>(budget) * 1'000'000'000;
    hover_tip("Training time each engine gets in the race (the plain loop gets at most 4 s). At 15 s the CPU part "
              "of the race takes under a minute on two cores.");
    ImGui::PopItemWidth();
    ImGui::Spacing();
    ImGui::Separator();
    const char* label = panel_ == Panel::Race || panel_ == Panel::Layers ? "Race (R)"
                        : panel_ == Panel::Batch                        ? "Run batch sizes (R)"
                        : panel_ == Panel::Roofline                     ? "Measure this machine (R)"
                                                                        : "Train (R)";
    if (draw_run_row(*host_.jobs, label,
                     "Runs on the worker thread: Train (one engine), the race (every engine for the same seconds), "
                     "the batch-size sweep or this machine's peaks, depending on the open tab. The window stays live.",
                     "Stop after the batch that is running; what was measured so far stays on screen.",
                     train_ || race_ || batch_ ? "idle: the tabs show the last runs" : "idle"))
        run_for_panel();
}

void TrainView::draw_learning_rate() {
    float rate = plan_.learning_rate;
    // No AlwaysClamp: a rate typed with Ctrl+click may fall outside the range, and is then refused
    // with the reason rather than silently clamped.
    if (ImGui::SliderFloat("learning rate", &rate, static_cast<float>(train::kMinLearningRate),
                           static_cast<float>(train::kMaxLearningRate), "%.4g", ImGuiSliderFlags_Logarithmic)) {
        rate_refusal_ = train::learning_rate_problem(rate);
        if (rate_refusal_.empty() && rate != plan_.learning_rate) {
            plan_.learning_rate = rate;
            live_rate_->store(rate, std::memory_order_relaxed);
            // Turned while Train runs: the worker takes it before its next update; mark the curve there.
            if (host_.jobs->busy() && host_.jobs->label().rfind("training", 0) == 0) {
                const train::LiveSnapshot s = live_->snapshot();
                const double at = s.batches.empty() ? 0.0 : s.batches.back().seconds;
                // One dragging motion is one mark, not one per frame.
                if (rate_marks_.empty() || at > rate_marks_.back().seconds + 0.5) rate_marks_.push_back({at, rate});
                else rate_marks_.back().rate = rate;
            }
        }
    }
    hover_tip("How far each SGD update moves the weights (with momentum 0.9). Turn it while Train runs: the "
              "next batch already uses it. Too small and the loss barely falls; too large and it jumps about or "
              "runs away. Ctrl+click to type one.");
    if (!rate_refusal_.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        ImGui::TextWrapped("Refused: %s.", rate_refusal_.c_str());
        ImGui::PopStyleColor();
    }
}

void TrainView::draw_predict() {
    if (!predict_) return;
    const core::PredictPrompt& p = *predict_;
    const bool ready = race_ && !host_.jobs->busy();
    if (!draw_predict_choices(p, pick_, reveal_now_, ready)) {
        ImGui::TextColored(kMutedColour, "%s", !ready          ? "Pick one, then race."
                                               : race_hidden() ? "Pick one: the race that has run answers it."
                                                               : "Pick one; the race on screen answers it.");
        return;
    }
    if (!ready) {
        ImGui::TextColored(kMutedColour, "%s",
                           host_.jobs->busy() ? "Your pick is in. The answer appears when the race ends."
                                              : "Your pick is in. Press R to race; the answer appears when it ends.");
        return;
    }
    const EpochAnswer a = answer_epoch_speedup(race_.get(), p.choices, comparison());
    if (a.stopped) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kMutedColour, "%s", a.text.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    if (!a.ok) {
        text_status(Status::Error, a.text.c_str());
        return;
    }
    ImGui::TextWrapped("%s", a.text.c_str());
    if (pick_ < 0 || a.best_choice < 0) return;
    const std::string nearest = p.choices[static_cast<std::size_t>(a.best_choice)];
    if (pick_ == a.best_choice)
        text_status(Status::Ok, a.measured   ? "Your prediction matches this machine's race."
                                : a.recorded ? "Your prediction matches the recorded GPU run's race (no GPU here)."
                                             : "Your prediction matches the article's figure (no GPU here).");
    else
        text_status(Status::Error, ("Not quite: the " +
                                    std::string(a.measured ? "measured" : a.recorded ? "recorded GPU run's" : "article's") +
                                    " answer is nearest to '" + nearest + "'.").c_str());
}

void TrainView::draw_timing() {
    draw_predict();
    if (predict_) ImGui::Separator();
    if (!data_) {
        draw_data_missing();
        return;
    }
    // The lines of the tab on show (the canvas takes the height the others would use, issue 41);
    // the model and samples tabs, which measure nothing, show what was measured.
    const bool overview = panel_ == Panel::Model || panel_ == Panel::Samples;
    const bool show_train = overview || panel_ == Panel::Train || panel_ == Panel::Results || panel_ == Panel::Layers;
    const bool show_race = overview || panel_ == Panel::Race || panel_ == Panel::Layers;
    const bool show_peaks = overview || panel_ == Panel::Roofline;
    if (train_ && show_train) {
        const train::LaneResult& l = train_->lane;
        // A run stopped before the test pictures were checked has no accuracy: said, never "0.0 %".
        char accuracy[96];
        if (train_->eval.confusion.total() > 0)
            std::snprintf(accuracy, sizeof accuracy, "test accuracy %.1f %%", 100.0 * train_->eval.accuracy());
        else
            std::snprintf(accuracy, sizeof accuracy, "%s", l.stopped ? "stopped before the test pictures were checked"
                                                                     : "no test pictures checked");
        if (train_->simulated)
            ImGui::Text("Train, %s: simulated on the CPU (not a GPU speed), %s", l.engine.c_str(), accuracy);
        else
            ImGui::Text("Train, %s: %s pictures/s, %s", l.engine.c_str(),
                        core::format_count(static_cast<std::int64_t>(l.images_per_second())).c_str(), accuracy);
        if (!l.implementation.empty()) text_fitted(kMutedColour, "  " + l.implementation);
    }
    if (race_ && show_race && !race_hidden()) {
        for (const auto& l : race_->lanes) {
            if (l.ran)
                ImGui::Text("Race, %s: %s pictures/s, %.1f %% after %s pictures", l.engine.c_str(),
                            core::format_count(static_cast<std::int64_t>(l.images_per_second())).c_str(),
                            100.0 * l.final_test_accuracy(), core::format_count(l.images).c_str());
            else
            {
                ImGui::TextColored(kMutedColour, "Race, %s: %s", l.engine.c_str(), not_run_line(l.reason).c_str());
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l.reason.c_str());
            }
        }
    }
    if (peaks_ && peaks_->ok && show_peaks)
        ImGui::Text("This machine, measured: %s FP32 peak, %s copy (FMA loop on %d threads, %s)",
                    train::format_flop_rate(peaks_->flops).c_str(), core::format_gbps(peaks_->bytes_per_s / 1e9).c_str(),
                    peaks_->threads, peaks_->isa.c_str());
    if (batch_ && panel_ == Panel::Batch) {
        // Per engine: its time per picture at its smallest and its largest batch that ran.
        for (std::size_t i = 0; i < batch_->cells.size();) {
            const std::string& engine = batch_->cells[i].engine;
            const train::BatchTiming *first = nullptr, *last = nullptr;
            for (; i < batch_->cells.size() && batch_->cells[i].engine == engine; ++i)
                if (batch_->cells[i].ran && batch_->cells[i].images > 0) {
                    if (!first) first = &batch_->cells[i];
                    last = &batch_->cells[i];
                }
            if (!first || first == last) continue;
            ImGui::Text("Batch sizes, %s: %s a picture at batch %lld, %s at batch %lld (%s faster per picture)", engine.c_str(),
                        core::format_duration(static_cast<std::int64_t>(first->ns_per_image())).c_str(),
                        static_cast<long long>(first->batch),
                        core::format_duration(static_cast<std::int64_t>(last->ns_per_image())).c_str(),
                        static_cast<long long>(last->batch),
                        core::format_ratio(first->ns_per_image() / std::max(last->ns_per_image(), 1.0)).c_str());
        }
    }
    const bool tab_has = panel_ == Panel::Batch ? batch_ != nullptr
                                                : (train_ && show_train) || (race_ && show_race) || (peaks_ && show_peaks);
    if (!tab_has)
        ImGui::TextColored(kMutedColour, "%s", host_.jobs->busy() ? "running: the numbers appear as it goes"
                                                                   : "nothing measured for this tab yet: press R");
}

bool TrainView::script_action(const std::string& name, std::string& said) {
    if (bool ok = false; answer_first_action(predict_, pick_, name, said, ok)) return ok;
    said = "unknown action '" + name + "' (answer-first)";
    return false;
}

}  // namespace gpulab::app
