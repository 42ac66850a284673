// `gpulab train`: the training lesson's experiment without a window. Loads the data set (Debian's
// Fashion-MNIST unless --data), builds the model, trains it on one backend for --epochs and prints
// per epoch the mean loss, train accuracy (while the weights moved, as Keras prints it), test
// accuracy, images per second and time; --json prints the same as records. The machine's load
// average is printed beside the speed, since the CPU may be shared. --precision (and, for fp16-mixed,
// --loss-scale) sets the engine's
// arithmetic before its setup (an engine that cannot do it refuses with its sentence, exit 2), and
// the header and every JSON record name what the engine says it runs (precision()). Bad input is
// one sentence: tests/cli_tests.cmake and tests/train_cli_tests.cmake (train_*) check the messages.
#include "cli.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "measure/format.h"
#include "gpu_train_engines.h"
#include "io/image_io.h"
#include "json_out.h"
#include "train/compute_precision.h"
#include "train/dataset.h"
#include "train/engine.h"
#include "train/trainer.h"

namespace gpulab::app {

namespace {

// "0.52 0.61 0.70" from /proc/loadavg, or "" where there is none.
std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    if (!(f >> a >> b >> c)) return "";
    return a + " " + b + " " + c;
}

// Where the time went: each layer's share of the epoch, forward and backward.
void print_layer_times(const train::ModelDesc& m, const train::EpochReport& r) {
    std::int64_t total = 0;
    for (const train::LayerTime& t : r.layer_ns) total += t.forward_ns + t.backward_ns;
    if (total == 0 || r.layer_ns.size() != m.layers.size()) return;
    for (std::size_t i = 0; i < m.layers.size(); ++i) {
        const train::LayerTime& t = r.layer_ns[i];
        std::printf("      %-7s forward %9s  backward %9s  %5.1f %%\n", m.layers[i].name.c_str(),
                    core::format_duration(t.forward_ns).c_str(), core::format_duration(t.backward_ns).c_str(),
                    100.0 * static_cast<double>(t.forward_ns + t.backward_ns) / static_cast<double>(total));
    }
}

std::string percent(double fraction) { return core::format_fixed(100.0 * fraction, 1) + " %"; }

}  // namespace

int cmd_train(const TrainOptions& o) {
    std::unique_ptr<train::TrainEngine> engine = train::make_train_engine(o.backend);
    if (!engine) engine = gpu::make_gpu_train_engine(o.backend);
    if (!engine) {
        std::fprintf(stderr, "gpulab train: unknown backend '%s'; choose one of %s, %s\n", o.backend.c_str(),
                     train::train_engine_names().c_str(), gpu::gpu_train_engine_names().c_str());
        return kExitUsage;
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
        return kExitUsage;
    }
    if (const core::Availability a = engine->availability(); !a.ok) {
        std::fprintf(stderr, "gpulab train: %s cannot run here: %s\n", o.backend.c_str(), a.reason.c_str());
        return kExitFailure;
    }
    const std::string folder = o.data.empty() ? train::kFashionMnistDir : o.data;
    train::TrainConfig config;
    if (!o.model.empty()) config.model_spec = o.model;
    config.batch = o.batch;
    config.seed = o.seed;
    config.sgd.learning_rate = static_cast<float>(o.learning_rate);
    config.sgd.momentum = static_cast<float>(o.momentum);
    bool array_open = false;  // --json: "[" printed, so an error still closes the array
    try {
        const train::Dataset data = train::load_dataset(folder, o.limit);
        train::Trainer trainer(*engine, data, config);
        const train::ModelDesc& m = trainer.model();
        if (!o.json) {
            std::printf("gpulab train: %s on %s: %s training and %s test images of %lldx%lld\n",
                        std::string(engine->name()).c_str(), data.folder.c_str(),
                        core::format_count(data.train.count).c_str(), core::format_count(data.test.count).c_str(),
                        static_cast<long long>(data.train.rows), static_cast<long long>(data.train.cols));
            std::printf("model %s: %s parameters, %s MFLOP forward and %s MFLOP backward per image\n",
                        m.spec.c_str(), core::format_count(m.parameter_count).c_str(),
                        core::format_fixed(m.forward_flops() / 1e6, 2).c_str(),
                        core::format_fixed(m.backward_flops() / 1e6, 2).c_str());
            std::printf("batch %lld, SGD learning rate %g, momentum %g, seed %llu\n", o.batch, o.learning_rate,
                        o.momentum, o.seed);
            std::printf("%s: %s\n", std::string(engine->name()).c_str(), engine->implementation().c_str());
            // After setup (in the Trainer): cudnn knows by then whether the GPU can do TF32.
            std::printf("precision: %s\n", engine->precision().c_str());
            if (!core::kind_is_timed(engine->kind()))
                std::printf("note: %s runs the GPU kernels on the SIMT simulator, on this CPU: its images/s and times "
                            "are the simulation's, never a GPU speed; keep it to a small --limit and --model\n",
                            std::string(engine->name()).c_str());
            if (o.backend == "cpu-scalar" && data.train.count > 2000)
                std::printf("note: cpu-scalar is the plain reference loop, far too slow for whole epochs; "
                            "--limit 1000 keeps it short\n");
            std::printf("%5s %8s %10s %10s %10s %10s  %s\n", "epoch", "loss", "train acc", "test acc", "images/s",
                        "time", "load average");
            std::fflush(stdout);
        } else {
            std::printf("[");
            array_open = true;
        }
        bool first = true;
        for (int epoch = 1; epoch <= o.epochs; ++epoch) {
            const train::EpochReport r = trainer.run_epoch();
            const double gflops = r.images_per_second() * (m.forward_flops() + m.backward_flops()) / 1e9;
            if (o.json) {
                json_record(first,
                            "\"backend\": " + json_string(std::string(engine->name())) +
                                ", \"precision\": " + json_string(engine->precision()) +
                                ", \"epoch\": " + std::to_string(r.epoch) + ", \"loss\": " + json_number(r.loss) +
                                ", \"train_accuracy\": " + json_number(r.train_accuracy) +
                                ", \"test_accuracy\": " + json_number(r.test_accuracy) +
                                ", \"images\": " + std::to_string(r.images) + ", \"batch\": " + std::to_string(o.batch) +
                                ", \"seed\": " + std::to_string(o.seed) +
                                ", \"images_per_s\": " + json_number(r.images_per_second()) +
                                ", \"gflops\": " + json_number(gflops) + ", \"train_ns\": " + std::to_string(r.train_ns) +
                                ", \"test_ns\": " + std::to_string(r.test_ns) +
                                ", \"load_average\": " + json_string(load_average()));
            } else {
                std::printf("%5d %8.4f %10s %10s %10s %10s  %s\n", r.epoch, r.loss, percent(r.train_accuracy).c_str(),
                            percent(r.test_accuracy).c_str(),
                            core::format_fixed(r.images_per_second(), 0).c_str(),
                            core::format_duration(r.train_ns).c_str(), load_average().c_str());
                if (o.layers) print_layer_times(m, r);
            }
            std::fflush(stdout);
        }
        if (o.json) std::printf("\n]\n");
        array_open = false;
        // FP16 mixed's loss scale moves while it trains: where it ended, and how many updates it skipped.
        if (!o.json && train::parse_compute_precision(o.precision) == train::ComputePrecision::Fp16Mixed)
            std::printf("after training: %s\n", engine->precision().c_str());
    } catch (const core::InputError& e) {
        if (array_open) std::printf("\n]\n");
        std::fprintf(stderr, "gpulab train: %s\n", e.what());
        return kExitFailure;
    } catch (const std::exception& e) {
        if (array_open) std::printf("\n]\n");
        std::fprintf(stderr, "gpulab train: training stopped: %s\n", e.what());
        return kExitFailure;
    }
    return kExitOk;
}

}  // namespace gpulab::app
