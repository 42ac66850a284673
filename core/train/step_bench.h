// Timing training steps (forward + backward + SGD update of one batch) on an engine, for
// `gpulab bench --suite train` and the lesson's batch-size view: synthetic images (the speed does
// not depend on the pixels), warm-up steps first (the first steps pay allocation and, for oneDNN,
// kernel compilation), then at least `min_samples` timed steps, median and spread.
// Verified by tests/test_train_engines.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "measure/stats.h"
#include "engine.h"
#include "model.h"

namespace gpulab::train {

struct StepBenchConfig {
    std::int64_t batch = 64;
    int warmup = 2;
    int min_samples = 10;
    int max_samples = 40;
    std::int64_t time_budget_ns = 2'000'000'000;  // stop sampling after this much, once min_samples ran
};

struct StepBenchResult {
    core::Stats step;  // one batch: forward + backward + step
    double images_per_second = 0.0;  // batch / median step
    double gflops = 0.0;             // (forward + backward FLOPs per image) x images/s
};

// Throws like the engine does (the caller reports).
StepBenchResult bench_train_steps(TrainEngine& engine, const ModelDesc& model, const StepBenchConfig& config);

}  // namespace gpulab::train
