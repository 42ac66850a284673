// The shared preparation of `gpulab train`: see cli_train_setup.h.
#include "cli_train_setup.h"

#include <cstdio>
#include <string_view>

#include "gpu_train_engines.h"
#include "io/file_io.h"
#include "io/image_io.h"  // core::InputError
#include "train/compute_precision.h"

namespace gpulab::app {

std::unique_ptr<train::TrainEngine> prepare_train_engine(const TrainOptions& o, int& exit_code) {
    std::unique_ptr<train::TrainEngine> engine = train::make_train_engine(o.backend);
    if (!engine) engine = gpu::make_gpu_train_engine(o.backend);
    if (!engine) {
        std::fprintf(stderr, "gpulab train: unknown backend '%s'; choose one of %s, %s\n", o.backend.c_str(),
                     train::train_engine_names().c_str(), gpu::gpu_train_engine_names().c_str());
        exit_code = kExitUsage;
        return nullptr;
    }
    // Before availability: a precision the engine can never run is a usage error wherever it runs.
    try {
        const train::ComputePrecision precision = train::parse_compute_precision(o.precision);
        engine->set_compute_precision(precision);
        if (o.loss_scale != 0.0 && precision != train::ComputePrecision::Fp16Mixed)
            throw core::InputError("--loss-scale belongs to --precision fp16-mixed (the only precision that scales "
                                   "the loss), not " + o.precision);
        engine->set_loss_scale(static_cast<float>(o.loss_scale));
    } catch (const core::InputError& e) {
        std::fprintf(stderr, "gpulab train: %s\n", e.what());
        exit_code = kExitUsage;
        return nullptr;
    }
    if (const core::Availability a = engine->availability(); !a.ok) {
        std::fprintf(stderr, "gpulab train: %s cannot run here: %s\n", o.backend.c_str(), a.reason.c_str());
        exit_code = kExitFailure;
        return nullptr;
    }
    return engine;
}

train::TrainConfig train_config(const TrainOptions& o) {
    train::TrainConfig config;
    if (!o.model.empty()) config.model_spec = o.model;
    config.batch = o.batch;
    config.seed = o.seed;
    config.sgd.learning_rate = static_cast<float>(o.learning_rate);
    config.sgd.momentum = static_cast<float>(o.momentum);
    return config;
}

std::string save_params(const std::string& path, const std::vector<float>& params) {
    // As they lie in memory: the file is read back on the same machine, by the test that compares runs.
    return core::write_output_file(
        path, std::string_view(reinterpret_cast<const char*>(params.data()), params.size() * sizeof(float)));
}

}  // namespace gpulab::app
