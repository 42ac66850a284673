// Timing training steps: see step_bench.h.
#include "step_bench.h"

#include <random>
#include <vector>

#include "measure/clock.h"

namespace gpulab::train {

StepBenchResult bench_train_steps(TrainEngine& engine, const ModelDesc& model, const StepBenchConfig& config) {
    engine.setup(model, init_params(model, 1), config.batch);
    std::vector<float> images(static_cast<std::size_t>(config.batch * model.input.size()));
    std::vector<std::uint8_t> labels(static_cast<std::size_t>(config.batch));
    std::mt19937 rng(1);
    for (float& x : images) x = static_cast<float>(rng() % 256) / 255.0f;
    for (std::uint8_t& l : labels) l = static_cast<std::uint8_t>(rng() % static_cast<unsigned>(model.classes));
    const Sgd sgd;
    auto one_step = [&] {
        engine.forward(images.data(), config.batch);
        engine.backward(labels.data());
        engine.step(sgd);
    };
    for (int i = 0; i < config.warmup; ++i) one_step();
    std::vector<std::int64_t> samples;
    const std::int64_t start = core::now_ns();
    while (static_cast<int>(samples.size()) < config.max_samples) {
        const std::int64_t t0 = core::now_ns();
        one_step();
        samples.push_back(core::now_ns() - t0);
        if (static_cast<int>(samples.size()) >= config.min_samples && core::now_ns() - start > config.time_budget_ns)
            break;
    }
    StepBenchResult r;
    r.step = core::summarize(samples);
    if (r.step.median_ns > 0) {
        r.images_per_second = static_cast<double>(config.batch) * 1e9 / static_cast<double>(r.step.median_ns);
        r.gflops = r.images_per_second * (model.forward_flops() + model.backward_flops()) / 1e9;
    }
    return r;
}

}  // namespace gpulab::train
