// The training view's runs: loading the data set, Train, the race, the batch-size sweep and this
// machine's peaks (FMA loop and copy, for the roofline tab), each as one job on the worker (JobRunner). Engines are made, used and destroyed on the worker; the
// live curves go through the shared LiveLog; the final result reaches the main thread as the job's
// completion. Headless (run_blocking) calls the same functions on the calling thread. See
// train_view.h.
#include <algorithm>
#include <cstdlib>
#include <functional>

#include "measure/clock.h"
#include "measure/format.h"
#include "gpu_train_engines.h"
#include "train/learning_knobs.h"
#include "train/machine_peak.h"
#include "train_view.h"

namespace gpulab::app {

namespace {

using train::Dataset;
using train::LaneResult;

// Engines in the order the race runs them: the reference, the CPU peers, then the GPU engines.
const std::vector<std::string> kLineup = {"cpu-scalar", "cpu-parallel", "cpu-onednn", "cuda-kernel", "cudnn"};

std::string data_folder() {
    const char* env = std::getenv("GPULAB_TRAIN_DATA");
    return env && *env ? env : train::kFashionMnistDir;
}

// Loads the data set when `have` is null; `limit` > 0 keeps the first pictures only (--quick).
// Never throws: `error` gets the sentence.
std::shared_ptr<const Dataset> ensure_data(std::shared_ptr<const Dataset> have, std::string& error,
                                           std::int64_t limit = 0) {
    if (have) return have;
    try {
        return std::make_shared<const Dataset>(train::load_dataset(data_folder(), limit));
    } catch (const std::exception& e) {
        error = e.what();
        return nullptr;
    }
}

// The CPU factory, then the GPU one (kernels/gpu_train_engines.h: always an engine, unavailable with
// the reason where it cannot run). cuda-sim is not in the lineup: a simulation's time is not a speed.
std::unique_ptr<train::TrainEngine> engine_or_reason(const std::string& name, std::string& reason) {
    std::unique_ptr<train::TrainEngine> e = train::make_train_engine(name);
    if (!e) e = gpu::make_gpu_train_engine(name);
    if (!e) reason = "no training engine of that name in this build";
    return e;
}

// One lane with the live log fed and the worker's progress asked after every batch.
LaneResult run_lane(train::TrainEngine& engine, const Dataset& data, const train::BudgetConfig& config,
                    train::LiveLog& live, const core::ProgressFn& progress, float from, float to,
                    std::int64_t planned_images, bool keep_previous = false) {
    live.start(std::string(engine.name()), keep_previous);
    auto fraction = [&](const LaneResult& l) {
        double f = planned_images > 0 ? static_cast<double>(l.images) / static_cast<double>(planned_images) : 0.0;
        if (config.budget_ns > 0) f = std::max(f, static_cast<double>(l.train_ns) / static_cast<double>(config.budget_ns));
        return std::clamp(f, 0.0, 1.0);
    };
    return train::train_with_budget(
        engine, data, config,
        [&](const LaneResult& l, const train::BatchProgress& p) {
            const std::int64_t n = std::min(config.train.batch, data.train.count - (p.batch - 1) * config.train.batch);
            const double f = fraction(l);
            live.add_batch({static_cast<double>(l.train_ns) * 1e-9, p.result.loss,
                            n > 0 ? static_cast<double>(p.result.correct) / static_cast<double>(n) : 0.0},
                           l.images, p.batch_ns, f);
            const std::string stage = std::string(engine.name()) + ": epoch " + std::to_string(p.epoch) + ", batch " +
                                      std::to_string(p.batch) + " of " + std::to_string(p.batches);
            return !progress || progress(static_cast<float>(from + (to - from) * f), stage);
        },
        [&](const LaneResult& l) {
            const train::CurvePoint& c = l.points.back();
            live.add_epoch({c.seconds, c.loss, c.test_accuracy});
        });
}

// `live_rate`: the slider's learning rate, read by the trainer before every update.
std::shared_ptr<const TrainRunResult> do_train(const TrainPlan& plan, const Dataset& all, train::LiveLog& live,
                                               const core::ProgressFn& progress,
                                               std::shared_ptr<const std::atomic<float>> live_rate = nullptr) {
    auto r = std::make_shared<TrainRunResult>();
    r->plan = plan;
    r->lane.engine = plan.backend;
    std::unique_ptr<train::TrainEngine> engine = engine_or_reason(plan.backend, r->lane.reason);
    if (!engine) return r;
    r->simulated = engine->kind() == core::BackendKind::Simulated;
    // The plain loop and the simulator manage tens of pictures per second: a few batches each.
    const bool plain = plan.backend == train::kPlainLoop || r->simulated;
    const Dataset data = train::subset(all, plan.images, plain ? 200 : plan.race_test_images);
    train::BudgetConfig config;
    config.train.batch = plan.batch;
    config.train.sgd.learning_rate = plan.learning_rate;
    config.train.live_learning_rate = std::move(live_rate);
    config.max_epochs = plain ? 1 : plan.epochs;
    config.budget_ns = plan.budget_ns;
    config.max_batches = plain ? plan.scalar_batches : 0;
    const std::int64_t planned = plain ? plan.scalar_batches * plan.batch : plan.images * plan.epochs;
    r->lane = run_lane(*engine, data, config, live, progress, 0.0f, 0.9f, planned);
    r->curves = live.snapshot();
    if (!r->lane.ran) return r;
    // The results tab: the trained weights on held-out images (the plain loop: fewer, it is slow).
    if (progress) progress(0.9f, "testing on held-out images");
    r->test_images = std::min(plain ? std::int64_t{200} : plan.eval_images, all.test.count);
    try {
        r->eval = train::evaluate(*engine, all.test, all.classes, plan.batch, r->test_images, 24);
    } catch (const std::exception& e) {
        r->lane.reason = std::string("evaluation failed: ") + e.what();
    }
    return r;
}

std::shared_ptr<const RaceRunResult> do_race(const TrainPlan& plan, const Dataset& all, train::LiveLog& live,
                                             const core::ProgressFn& progress) {
    auto r = std::make_shared<RaceRunResult>();
    r->plan = plan;
    const std::int64_t start = core::now_ns();
    const Dataset data = train::subset(all, plan.race_images, plan.race_test_images);
    const float share = 1.0f / static_cast<float>(kLineup.size());
    bool ran_one = false;  // the live plot keeps the lanes that finished
    for (std::size_t i = 0; i < kLineup.size(); ++i) {
        LaneResult lane;
        lane.engine = kLineup[i];
        std::unique_ptr<train::TrainEngine> engine = engine_or_reason(kLineup[i], lane.reason);
        if (engine) {
            train::BudgetConfig config;
            config.train.batch = plan.batch;
            config.train.sgd.learning_rate = plan.learning_rate;  // the same for every lane, never live
            const bool plain = kLineup[i] == train::kPlainLoop;
            config.budget_ns = plain ? std::min(plan.race_scalar_budget_ns, plan.race_budget_ns) : plan.race_budget_ns;
            config.max_epochs = 1000;
            lane = run_lane(*engine, data, config, live, progress, share * i, share * (i + 1), 0, ran_one);
            ran_one = true;
            lane.params.clear();  // the race keeps curves and times, not weights
        }
        r->lanes.push_back(std::move(lane));
        if (r->lanes.back().stopped) break;
    }
    r->summary = train::summarize_race(r->lanes);
    r->wall_ns = core::now_ns() - start;
    return r;
}

std::shared_ptr<const BatchRunResult> do_batch_sweep(const TrainPlan& plan, const Dataset& all,
                                                      const core::ProgressFn& progress) {
    auto r = std::make_shared<BatchRunResult>();
    r->plan = plan;
    const Dataset data = train::subset(all, std::max<std::int64_t>(plan.batch_images, 1024), 1);
    const std::size_t total = kLineup.size() * plan.batches.size();
    std::size_t done = 0;
    bool go = true;
    for (const std::string& name : kLineup) {
        std::string reason;
        std::unique_ptr<train::TrainEngine> engine = engine_or_reason(name, reason);
        for (std::int64_t b : plan.batches) {
            train::BatchTiming t;
            t.engine = name;
            t.batch = b;
            const bool plain = name == train::kPlainLoop;
            if (!engine) {
                t.reason = reason;
            } else if (!go) {
                t.reason = "stopped";
            } else if (plain && b > 16) {
                t.reason = "skipped: the plain loop would take minutes at this batch";
            } else {
                train::TrainConfig config;
                config.batch = b;
                const std::string stage = name + ", batch " + std::to_string(b);
                go = !progress || progress(static_cast<float>(done) / static_cast<float>(total), stage);
                if (go) {
                    t = train::time_batch_size(*engine, data, config, plain ? 32 : plan.batch_images,
                                               plain ? plan.batch_budget_ns / 4 : plan.batch_budget_ns, [&] {
                                                   go = !progress || progress(static_cast<float>(done) / total, stage);
                                                   return go;
                                               });
                } else {
                    t.reason = "stopped";
                }
            }
            r->cells.push_back(std::move(t));
            ++done;
        }
    }
    return r;
}

// This machine's peaks: a short FMA loop and a 128 MiB copy (--quick: a shorter FMA loop; the copy
// stays that large, since 32 MiB measured the cache here, twice the 128 MiB figure).
std::shared_ptr<const train::MeasuredPeaks> do_measure_peaks(bool quick) {
    return std::make_shared<const train::MeasuredPeaks>(quick ? train::measure_peaks(60'000'000)
                                                              : train::measure_peaks());
}

}  // namespace

TrainPlan quick_plan(TrainPlan p) {
    p.images = 600;
    p.epochs = 1;
    p.budget_ns = 5'000'000'000;
    p.eval_images = 300;
    p.scalar_batches = 2;
    p.race_budget_ns = 500'000'000;
    p.race_scalar_budget_ns = 200'000'000;
    p.race_images = 300;
    p.race_test_images = 100;
    p.batches = {1, 16, 150};
    p.batch_images = 150;
    p.batch_budget_ns = 100'000'000;
    p.quick = true;
    return p;
}

void TrainView::adopt_data(std::shared_ptr<const train::Dataset> data, const std::string& error) {
    if (data) {
        data_ = std::move(data);
        data_error_.clear();
    } else if (!error.empty()) {
        data_error_ = error;
    }
}

bool TrainView::start_loading() {
    if (data_ || loading_) return false;
    loading_ = true;
    // Reading the pictures measures nothing: the line saying where the shown result came from stays.
    auto work = [this](const core::ProgressFn& progress) {
        if (progress) progress(0.2f, "reading the IDX files");
        std::string error;
        auto data = ensure_data(nullptr, error);
        return std::function<void()>([this, data, error] {
            loading_ = false;
            adopt_data(data, error);
        });
    };
    return host_.submit("loading Fashion-MNIST", std::move(work), /*keep_messages=*/true, /*measures_here=*/false);
}

bool TrainView::start_train() {
    const TrainPlan plan = effective_plan();
    if (const std::string problem = train::learning_rate_problem(plan.learning_rate); !problem.empty()) {
        host_.error = "cannot train: " + problem;
        return false;
    }
    auto have = data_;
    auto live = live_;
    live_rate_->store(plan.learning_rate, std::memory_order_relaxed);
    rate_marks_.clear();
    std::shared_ptr<const std::atomic<float>> rate = live_rate_;
    return host_.submit("training " + plan.backend, [this, plan, have, live, rate](const core::ProgressFn& progress) {
        std::string error;
        auto data = ensure_data(have, error);
        std::shared_ptr<const TrainRunResult> r = data ? do_train(plan, *data, *live, progress, rate) : nullptr;
        return std::function<void()>([this, data, error, r] {
            adopt_data(data, error);
            if (!r) return;
            // Stopped by leaving the step, the line would describe another tab: the shell says it then.
            if (r->lane.stopped && panel_ == Panel::Train)
                host_.info = "training stopped: the curves and results show what it learnt so far";
            if (!r->lane.ran) {
                host_.error = r->lane.engine + " could not train: " + r->lane.reason;
                return;
            }
            train_ = r;
            keep_result(train_);
            predict_dropped();
            classify_probe();
        });
    });
}

bool TrainView::start_race() {
    const TrainPlan plan = effective_plan();
    auto have = data_;
    auto live = live_;
    return host_.submit("race", [this, plan, have, live](const core::ProgressFn& progress) {
        std::string error;
        auto data = ensure_data(have, error);
        std::shared_ptr<const RaceRunResult> r = data ? do_race(plan, *data, *live, progress) : nullptr;
        return std::function<void()>([this, data, error, r] {
            adopt_data(data, error);
            if (!r) return;
            if (!r->lanes.empty() && r->lanes.back().stopped) host_.info = "race stopped: the plot shows the lanes so far";
            race_ = r;
            keep_result(race_);
        });
    });
}

bool TrainView::start_batch_sweep() {
    const TrainPlan plan = effective_plan();
    auto have = data_;
    return host_.submit("batch sizes", [this, plan, have](const core::ProgressFn& progress) {
        std::string error;
        auto data = ensure_data(have, error);
        std::shared_ptr<const BatchRunResult> r = data ? do_batch_sweep(plan, *data, progress) : nullptr;
        return std::function<void()>([this, data, error, r] {
            adopt_data(data, error);
            if (!r) return;
            batch_ = r;
            keep_result(batch_);
        });
    });
}

bool TrainView::start_measuring_peaks() {
    if (measuring_peaks_) return false;
    measuring_peaks_ = true;
    const bool quick = quick_;
    const bool submitted = host_.submit("measuring this machine", [this, quick](const core::ProgressFn& progress) {
        if (progress) progress(0.1f, "FMA loop on every thread, then a large copy");
        auto peaks = do_measure_peaks(quick);
        return std::function<void()>([this, peaks, quick] {
            measuring_peaks_ = false;
            peaks_ = peaks;
            keep_result(peaks_, quick);
            if (!peaks->ok) host_.error = peaks->error;
        });
    });
    if (!submitted) measuring_peaks_ = false;  // the worker was busy: the tab asks again when it is free
    return submitted;
}

void TrainView::run_for_panel() {
    if (host_.refuse_if_busy()) return;
    switch (panel_) {
        case Panel::Roofline: start_measuring_peaks(); break;
        case Panel::Race:
        case Panel::Layers: start_race(); break;
        case Panel::Batch: start_batch_sweep(); break;
        case Panel::Model:
        case Panel::Samples:
            if (!data_) {
                start_loading();
                break;
            }
            [[fallthrough]];
        default: start_train(); break;
    }
}

void TrainView::request_run() { run_for_panel(); }

void TrainView::run_blocking(bool quick) {
    run_on_step_ = false;
    quick_ = quick;
    const TrainPlan plan = effective_plan();
    std::string error;
    // --quick reads 2,000 pictures of each set: enough for every tab, and no 47 MB to inflate.
    adopt_data(ensure_data(data_, error, quick ? 2000 : 0), error);
    if (!data_) return;
    // Headless: the tab's own measurement, plus a training run so the results have weights. The
    // first tab (the one-picture export starts there) measures everything, so the export is whole.
    const bool all = panel_ == Panel::Model;
    if (all || panel_ == Panel::Roofline) keep_result(peaks_ = do_measure_peaks(quick), quick);
    if (all || panel_ == Panel::Race || panel_ == Panel::Layers) keep_result(race_ = do_race(plan, *data_, *live_, {}));
    if (all || panel_ == Panel::Batch) keep_result(batch_ = do_batch_sweep(plan, *data_, {}));
    if (!train_ || panel_ == Panel::Train || all) {
        auto r = do_train(plan, *data_, *live_, {});
        if (r->lane.ran) keep_result(train_ = r);
        else host_.error = r->lane.engine + " could not train: " + r->lane.reason;
    }
    predict_dropped();
    classify_probe();
}

}  // namespace gpulab::app
