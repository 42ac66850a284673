// The training lesson's view (lesson train-small-cnn): the article's small CNN trained on
// Fashion-MNIST. Every run goes to the one worker (JobRunner): Train (one engine, a subset and a
// time budget, live loss and accuracy through core/train/live_log.h, then an evaluation on held-out
// images), the race (every engine for the same seconds, one after the other) and the batch-size
// sweep; the data set loads on the worker too. Eight tabs: model, samples, train, race, peaks and
// roofline (the article's two machines from published specs, this one measured, a roofline estimate
// per layer), where the time goes, batch size, results (confusion matrix, predictions, a dropped
// picture). The learning rate is a live knob: the worker reads it before every update. The
// measuring and bookkeeping are plain C++ in core/train/ (race.h, evaluation.h, picture.h,
// roofline.h, machine_peak.h, learning_knobs.h); this folder only draws. Export writes <lesson>-train.png, -results.png, -race.png, -train.csv and -window.png.
// Verified by the gui.train_* tests in tests/train_gui_tests.cmake and by the screenshots.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compare/compare_import.h"
#include "measure/result_cache.h"
#include "runtime/memory.h"
#include "train/article_figures.h"
#include "train/dataset.h"
#include "train/evaluation.h"
#include "train/live_log.h"
#include "train/machine_peak.h"
#include "train/model.h"
#include "train/picture.h"
#include "train/race.h"
#include "train/roofline.h"
#include "views/lesson_view.h"
#include "views/recorded_gpu.h"

namespace gpulab::app {

// The sizes one kind of run uses: the class defaults, or --quick's few batches on a small subset.
struct TrainPlan {
    std::string backend = "cpu-parallel";
    std::int64_t images = 6000;       // training images per epoch (the first ones of the 60,000)
    int epochs = 2;
    std::int64_t batch = 64;
    float learning_rate = 0.05f;  // SGD's; the slider also turns a run that is training (live_rate_)
    std::int64_t budget_ns = 45'000'000'000;  // Train stops here whatever the epochs say
    std::int64_t eval_images = 2000;  // held-out images the results are measured on
    std::int64_t scalar_batches = 5;  // the plain loop: a few batches only
    // The race
    std::int64_t race_budget_ns = 15'000'000'000;
    std::int64_t race_scalar_budget_ns = 4'000'000'000;
    std::int64_t race_images = 2000;  // per epoch: a test-accuracy point every epoch
    std::int64_t race_test_images = 500;
    // Batch size
    std::vector<std::int64_t> batches = {1, 16, 150, 1024};
    std::int64_t batch_images = 2048;
    std::int64_t batch_budget_ns = 4'000'000'000;
    bool quick = false;
};
TrainPlan quick_plan(TrainPlan p);

struct TrainRunResult {
    TrainPlan plan;
    // cuda-sim: the GPU's kernels run by the SIMT simulator on this CPU. Its clock is the simulator's,
    // so no pictures/s is shown or exported for it (core::kind_is_timed).
    bool simulated = false;
    train::LaneResult lane;
    train::Evaluation eval;
    std::int64_t test_images = 0;  // held-out images evaluated
    train::LiveSnapshot curves;    // the live log when the run ended: the Train tab's curves
    // Ran to its end (its epochs or its time budget) and was evaluated: only such a run is written
    // to the results store, so a run stopped part-way (Stop, a step left) never replaces a whole one
    // on disk (issue 41).
    bool complete() const { return lane.ran && !lane.stopped && eval.confusion.total() > 0; }
};
struct RaceRunResult {
    TrainPlan plan;
    std::vector<train::LaneResult> lanes;  // every engine, those that could not run with their reason
    train::RaceSummary summary;
    std::int64_t wall_ns = 0;  // the whole race, test-set checks included (the class's waiting time)
    bool complete() const;     // every lane of the line-up had its turn (none stopped)
};
struct BatchRunResult {
    TrainPlan plan;
    std::vector<train::BatchTiming> cells;  // engine-major, in plan.batches order
    bool complete() const;                  // no cell was stopped
};

// The answer to "how much faster will the GPU finish one epoch?" from a race; never throws.
struct EpochAnswer {
    bool ok = false;
    bool measured = false;  // a GPU engine ran
    bool recorded = false;  // none ran here: the ratio is the shipped GPU recording's race
    bool stopped = false;   // the race was stopped part-way: no answer, and no pick is judged
    double ratio = 0.0;
    int best_choice = -1;   // the choice whose "about Nx" is nearest (log scale)
    std::string text;
};
// Another machine's race judged as this machine's is (train/race.h): its fastest GPU engine and its
// fastest CPU engine, never the plain loop (cuda-sim is never in a race). Both lanes ran on that
// one computer, so their ratio is that computer's. Null where no such lane ran.
struct ImportedRaceLeaders {
    const core::ImportedTrainLane* cpu = nullptr;
    const core::ImportedTrainLane* gpu = nullptr;
};
ImportedRaceLeaders imported_race_leaders(const core::ImportedTrain& race);

// `recorded`: a GPU recording's race (its fastest GPU engine over its fastest CPU engine, both on that
// computer) answers where no GPU engine ran here; else the article's figure does.
EpochAnswer answer_epoch_speedup(const RaceRunResult* race, const std::vector<std::string>& choices,
                                 const core::ImportedTrain* recorded = nullptr);

// The lesson's CSV: caption lines as # comments, then one row per measured point.
// Every row's last column says where it was measured (issue 39); `recorded`, a shipped GPU
// recording's race, adds its lanes after this machine's rows under its own source.
std::string train_csv(const TrainRunResult* train, const RaceRunResult* race, const BatchRunResult* batch,
                      const std::vector<std::string>& caption, const core::ImportedTrain* recorded = nullptr);

class TrainView : public LessonView {
  public:
    enum class Panel { Model, Samples, Train, Race, Roofline, Layers, Batch, Results };

    explicit TrainView(ViewHost& host);

    void enter_step(const core::LessonStep& step) override;
    void update(float dt) override;
    void request_run() override;
    void run_blocking(bool quick) override;
    bool has_result() const override { return data_ != nullptr || !data_error_.empty(); }
    void show_overview_panel() override;

    void draw_canvas() override;
    bool remeasures_when_quiet() const override { return false; }  // see LessonView
    void draw_timing() override;
    void draw_controls() override;
    bool draws_predict_prompt() const override { return true; }
    // The curves, the race plot and the confusion matrix are all on the canvas; the timing panel
    // holds only the predict prompt and one line per engine, so on a projector the canvas gets most
    // of the height (at half, the race plot needed scrolling).
    float presenter_canvas_share() const override { return 0.68f; }
    void drop_files(const std::vector<std::string>& paths) override;
    bool load_comparison(const std::string& path, std::string& error) override;
    bool script_action(const std::string& name, std::string& said) override;  // answer-first
    std::string comparison_file_suffix() const override { return "-train.csv"; }

    ExportResult export_files(const ViewExport& in) override;
    std::string export_description() const override;
    std::string measurement_csv(const std::string& lesson_title) const override;

  private:
    // [SECTION] panels (train_model_panel.cpp, train_samples_panel.cpp, train_curves_panel.cpp,
    // train_race_panel.cpp, train_roofline_panel.cpp, train_layers_panel.cpp, train_batch_panel.cpp,
    // train_results_panel.cpp)
    void draw_model_panel(float width);
    void draw_samples_panel(float width);
    void draw_train_panel(float width);
    void draw_one_picture(float width);  // train_one_picture.cpp: softmax and loss of one test picture
    void draw_race_panel(float width);
    void draw_other_machine_race(float width);  // train_race_panel.cpp
    void draw_race_results(float width);        // the race's table and speed-ups, under its plots
    void draw_roofline_panel(float width);
    void draw_layers_panel(float width);
    void draw_batch_panel(float width);
    void draw_results_panel(float width);
    void draw_data_missing();
    void draw_predict();
    void draw_learning_rate();  // train_controls.cpp: the slider, live while training, and its refusal

    // [SECTION] runs (train_jobs.cpp)
    bool start_train();
    bool start_race();
    bool start_batch_sweep();
    bool start_loading();
    bool start_measuring_peaks();
    void run_for_panel();  // what Run (R) and a step's "run" do on the current tab
    void adopt_data(std::shared_ptr<const train::Dataset> data, const std::string& error);
    void predict_dropped();
    void classify_probe();  // the Train tab's one test picture, from train_'s weights

    TrainPlan effective_plan() const { return quick_ ? quick_plan(plan_) : plan_; }

    // [SECTION] stored results (train_stored.cpp)
    static std::string train_key(const TrainPlan& p);
    static std::string race_key(const TrainPlan& p);
    static std::string batch_key(const TrainPlan& p);
    static std::string peaks_key(bool quick);
    void connect_stored_results();
    // Into the cache (and the store behind it) only when whole: a stopped run is never kept.
    void keep_result(const std::shared_ptr<const TrainRunResult>& r);
    void keep_result(const std::shared_ptr<const RaceRunResult>& r);
    void keep_result(const std::shared_ptr<const BatchRunResult>& r);
    void keep_result(const std::shared_ptr<const train::MeasuredPeaks>& p, bool quick);
    bool find_stored_for_panel();
    // The race's numbers wait for the step's prediction (a stored race is ready before it is asked).
    bool race_hidden() const { return race_ && predict_ && pick_ < 0; }

    ViewHost& host_;
    TrainPlan plan_;
    bool quick_ = false;  // headless --quick: every run uses quick_plan
    Panel panel_ = Panel::Model;
    bool select_panel_ = false;
    bool run_on_step_ = false;
    const train::ModelDesc model_;  // the article's model on 28x28x1 (drawn before any data loads)

    std::shared_ptr<const train::Dataset> data_;  // the whole data set, loaded once on the worker
    std::string data_error_;                      // why it could not be loaded
    bool loading_ = false;

    std::shared_ptr<train::LiveLog> live_ = std::make_shared<train::LiveLog>();  // written by the worker
    std::shared_ptr<const TrainRunResult> train_;
    std::shared_ptr<const RaceRunResult> race_;
    std::shared_ptr<const BatchRunResult> batch_;
    std::shared_ptr<const train::MeasuredPeaks> peaks_;  // this machine's FMA peak and copy bandwidth
    core::ResultCache<const TrainRunResult> train_cache_{core::results_cache_bytes()};
    core::ResultCache<const RaceRunResult> race_cache_{core::results_cache_bytes()};
    core::ResultCache<const BatchRunResult> batch_cache_{core::results_cache_bytes()};
    core::ResultCache<const train::MeasuredPeaks> peaks_cache_{core::results_cache_bytes()};
    // Where each shown result came from when it was not measured in this session (the line under a
    // tab says so on every step that shows it); reset by each new run's result (keep_result).
    struct StoredOrigin {
        std::int64_t measured_unix_s = 0;
        core::CacheOrigin origin;
    };
    std::optional<StoredOrigin> train_origin_, race_origin_, batch_origin_, peaks_origin_;
    bool measuring_peaks_ = false;

    // The roofline tab's own knobs: the article's batch to start with, FP32 to start with.
    std::int64_t roofline_batch_ = train::ArticleFigures::kBatch;
    train::Precision roofline_precision_ = train::Precision::Fp32;
    int roofline_part_ = 0;  // the part of the tab shown where it is cut into parts
    int race_part_ = 0;          // the same for the race tab: its plots, then its table
    float race_rest_h_ = 0.0f;   // the race's table and speed-ups, their height in the last frame

    // The learning rate the worker reads before every update, and what the slider says about it.
    std::shared_ptr<std::atomic<float>> live_rate_ = std::make_shared<std::atomic<float>>(0.05f);
    std::string rate_refusal_;              // the sentence for a typed rate out of range
    struct RateMark {
        double seconds = 0.0;  // training time of the run when the rate changed
        float rate = 0.0f;
    };
    std::vector<RateMark> rate_marks_;       // every change while training, drawn on the loss curve
    std::int64_t probe_index_ = 0;           // the test picture the Train tab shows
    std::vector<float> probe_probs_;         // its softmax over the classes
    double probe_loss_ = 0.0;                // -ln p(true class)

    std::optional<core::PredictPrompt> predict_;
    int pick_ = -1;
    bool reveal_now_ = false;

    std::unique_ptr<core::ImportedTrain> other_;  // another machine's race, from its -train.csv
    // The file loaded to compare with, else the shipped GPU recording's race (views/recorded_gpu.h).
    mutable RecordedMatch<core::ImportedTrain> recorded_;
    const core::ImportedTrain* comparison() const;

    std::optional<train::ModelPicture> dropped_;
    std::string dropped_path_;
    std::vector<float> dropped_probs_;  // softmax over the classes, from train_'s weights
};

}  // namespace gpulab::app
