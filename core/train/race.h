// The training lesson's measurements as plain C++, so the view's worker only calls them and the
// tests check them: training one engine for a wall-clock budget (the race, and the lesson's Train
// button), the race's bookkeeping (the fastest CPU engine that is not the plain loop is the CPU's
// number in every speed-up), and time per image at one batch size. Budgets count training time
// only (forward, backward, update and batch preparation); the test-set accuracy between epochs is
// measured outside the clock, the same for every engine. Verified by tests/test_train_race.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "dataset.h"
#include "engine.h"
#include "trainer.h"

namespace gpulab::train {

// The first `train_n` training and `test_n` test images of `data` (all of a set when its n <= 0
// or larger than the set), copied: a lesson-sized subset.
Dataset subset(const Dataset& data, std::int64_t train_n, std::int64_t test_n);

// One point of a curve, taken at the end of an epoch (or where the budget stopped it).
struct CurvePoint {
    double seconds = 0.0;  // training time so far (test time excluded)
    std::int64_t images = 0;
    double loss = 0.0;
    double train_accuracy = 0.0;
    double test_accuracy = 0.0;
};

struct LaneResult {
    std::string engine;
    std::string implementation;
    std::string precision;       // the engine's arithmetic (TrainEngine::precision): "FP32", ...
    bool ran = false;
    std::string reason;        // why it did not run, or why it stopped early
    bool stopped = false;      // the caller's callback stopped it (Stop / Cancel)
    bool budget_hit = false;   // the time budget ended it
    std::vector<CurvePoint> points;
    // Every batch's loss, in order: the same numbers (up to rounding) on every engine, since all start
    // from the same weights and see the same batches; the race draws them on top of each other.
    std::vector<float> batch_loss;
    std::int64_t images = 0;
    std::int64_t train_ns = 0;
    std::vector<LayerTime> layer_ns;  // summed over every batch
    std::vector<float> params;        // the trained parameters (empty when it did not run)
    double images_per_second() const { return train_ns > 0 ? images * 1e9 / static_cast<double>(train_ns) : 0.0; }
    double final_test_accuracy() const { return points.empty() ? 0.0 : points.back().test_accuracy; }
};

struct BudgetConfig {
    TrainConfig train;
    std::int64_t budget_ns = 0;  // <= 0: no time limit
    int max_epochs = 1;
    std::int64_t max_batches = 0;  // <= 0: no limit (cpu-scalar's "a few batches")
};

// Called after every batch with the lane so far (points of finished epochs) and the batch; return
// false to stop. Called on the training thread.
using LaneCallback = std::function<bool(const LaneResult&, const BatchProgress&)>;

// Trains `engine` from the seed's initial weights on `data`, epoch after epoch, until max_epochs,
// the budget or the callback ends it. Never throws: a failure is a LaneResult with ran = false and
// the reason.
// `on_epoch` sees the lane after each epoch's point was added (its test accuracy measured).
LaneResult train_with_budget(TrainEngine& engine, const Dataset& data, const BudgetConfig& config,
                             const LaneCallback& on_batch = {},
                             const std::function<void(const LaneResult&)>& on_epoch = {});

// A CPU engine by its name ("cpu-..."); the rest are GPU engines.
bool is_cpu_engine(std::string_view name);
inline constexpr std::string_view kPlainLoop = "cpu-scalar";

struct RaceSummary {
    int fastest_cpu = -1;  // index of the CPU lane with the most images/s, the plain loop excluded
    int fastest_gpu = -1;
    double speedup = 0.0;  // fastest GPU over fastest CPU images/s; 0 when either is missing
    std::string text;      // one sentence saying so, or why there is no speed-up
};
RaceSummary summarize_race(const std::vector<LaneResult>& lanes);

// Time per image when `images` training images go through in batches of `batch` (forward, backward,
// update), after one warm-up batch that is not counted; stops early
// (with the images done so far) once `budget_ns` is spent. ran = false with the reason on failure.
struct BatchTiming {
    std::string engine;
    std::int64_t batch = 0;
    std::int64_t images = 0;  // counted
    std::int64_t ns = 0;
    bool ran = false;
    std::string reason;
    double ns_per_image() const { return images > 0 ? static_cast<double>(ns) / static_cast<double>(images) : 0.0; }
};
BatchTiming time_batch_size(TrainEngine& engine, const Dataset& data, const TrainConfig& config, std::int64_t images,
                            std::int64_t budget_ns, const std::function<bool()>& keep_going = {});

}  // namespace gpulab::train
