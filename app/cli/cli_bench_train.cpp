// `gpulab bench --suite train`: images per second of one training step (forward, backward and SGD
// update of a batch) of the training lesson's model on every available engine (CPU, and cuda-kernel
// where there is a GPU; never cuda-sim, whose time is the simulator's), at the lesson's
// batch (64) and the article's (150), with the ratio to oneDNN (TARGETS.md: cpu-parallel >= 0.7x
// cpu-onednn). Synthetic images; cpu-scalar, the plain loop, runs only a few steps of a small
// batch, to show the distance. `--quick`: batch 8, 3 samples. Numbers in docs/benchmarks.md.
#include "cli_bench_train.h"

#include <cstdio>
#include <string>
#include <vector>

#include "measure/format.h"
#include "gpu_train_engines.h"
#include "json_out.h"
#include "train/engine.h"
#include "train/step_bench.h"

namespace gpulab::app {

int bench_train(const BenchOptions& o, bool& first) {
    const train::ModelDesc model = train::make_model(train::kDefaultModelSpec, {1, 28, 28});
    const std::vector<std::int64_t> batches = o.quick ? std::vector<std::int64_t>{8} : std::vector<std::int64_t>{64, 150};
    int failures = 0;
    if (!o.json) {
        std::printf("\nTraining step (forward + backward + SGD) of %s on 28x28 images, %s parameters, %s MFLOP per "
                    "image\n",
                    model.spec.c_str(), core::format_count(model.parameter_count).c_str(),
                    core::format_fixed((model.forward_flops() + model.backward_flops()) / 1e6, 2).c_str());
        std::printf("  %-13s %6s %10s %10s %10s %10s %9s %8s  %s\n", "backend", "batch", "median", "min", "max",
                    "images/s", "GFLOP/s", "/oneDNN", "implementation");
    }
    for (const std::int64_t batch : batches) {
        struct Row {
            std::string name, implementation;
            train::StepBenchResult r;
        };
        std::vector<Row> rows;
        double onednn = 0.0;
        train::TrainEngineList engines = train::make_cpu_train_engines();
        for (auto& e : gpu::make_gpu_train_engines()) engines.push_back(std::move(e));
        for (const auto& engine : engines) {
            const std::string name(engine->name());
            if (!o.backends.empty()) {
                bool wanted = false;
                for (const auto& b : o.backends) wanted = wanted || b == name;
                if (!wanted) continue;
            }
            // Bench numbers are speeds: cuda-sim's time is the simulator's, so it is never timed here
            // (asked for by name, `bench` has already said so for every suite).
            if (!core::kind_is_timed(engine->kind())) continue;
            if (!engine->availability().ok) {
                if (!o.json) std::printf("  %-13s not available: %s\n", name.c_str(), engine->availability().reason.c_str());
                continue;
            }
            train::StepBenchConfig config;
            config.batch = batch;
            if (o.quick) config.min_samples = config.max_samples = 3, config.warmup = 1;
            if (name == "cpu-scalar") {
                // The plain loop: about a second per batch of 64 here; a few steps of 8 images tell its speed.
                config.batch = 8;
                config.warmup = 0;
                config.min_samples = config.max_samples = o.quick ? 1 : 3;
            }
            bench_progress("bench: training steps on %s, batch %lld...\n", name.c_str(),
                           static_cast<long long>(config.batch));
            try {
                Row row{name, "", train::bench_train_steps(*engine, model, config)};
                row.implementation = engine->implementation();
                if (name == "cpu-onednn") onednn = row.r.images_per_second;
                rows.push_back(row);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "gpulab: training steps on %s: %s\n", name.c_str(), e.what());
                ++failures;
            }
        }
        for (const Row& row : rows) {
            const std::int64_t b = row.name == "cpu-scalar" ? 8 : batch;
            const double ratio = onednn > 0 ? row.r.images_per_second / onednn : 0.0;
            if (o.json) {
                json_record(first, "\"op\": \"train-step\", \"backend\": " + json_string(row.name) +
                                       ", \"batch\": " + std::to_string(b) +
                                       ", \"median_ns\": " + std::to_string(row.r.step.median_ns) +
                                       ", \"min_ns\": " + std::to_string(row.r.step.min_ns) +
                                       ", \"max_ns\": " + std::to_string(row.r.step.max_ns) +
                                       ", \"samples\": " + std::to_string(row.r.step.samples) +
                                       ", \"images_per_s\": " + json_number(row.r.images_per_second) +
                                       ", \"gflops\": " + json_number(row.r.gflops) +
                                       ", \"ratio_to_onednn\": " + (onednn > 0 ? json_number(ratio) : "null") +
                                       ", \"implementation\": " + json_string(row.implementation));
            } else {
                std::printf("  %-13s %6lld %10s %10s %10s %10s %9s %8s  %s\n", row.name.c_str(),
                            static_cast<long long>(b), core::format_duration(row.r.step.median_ns).c_str(),
                            core::format_duration(row.r.step.min_ns).c_str(),
                            core::format_duration(row.r.step.max_ns).c_str(),
                            core::format_fixed(row.r.images_per_second, 0).c_str(),
                            core::format_fixed(row.r.gflops, 1).c_str(),
                            onednn > 0 ? core::format_ratio(ratio).c_str() : "-", row.implementation.c_str());
            }
        }
    }
    return failures;
}

}  // namespace gpulab::app
