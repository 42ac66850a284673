// What `gpulab train` prints: see cli_train_report.h.
#include "cli_train_report.h"

#include <cstdio>
#include <fstream>

#include "json_out.h"
#include "measure/format.h"

namespace gpulab::app {

namespace {

// Where the time goes: each layer's share of the epoch, forward and backward.
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

std::string load_average() {
    std::ifstream f("/proc/loadavg");
    std::string a, b, c;
    if (!(f >> a >> b >> c)) return "";
    return a + " " + b + " " + c;
}

void print_train_header(const TrainOptions& o, train::TrainEngine& engine, const train::Dataset& data,
                        const train::ModelDesc& m) {
    std::printf("gpulab train: %s on %s: %s training and %s test images of %lldx%lld\n",
                std::string(engine.name()).c_str(), data.folder.c_str(), core::format_count(data.train.count).c_str(),
                core::format_count(data.test.count).c_str(), static_cast<long long>(data.train.rows),
                static_cast<long long>(data.train.cols));
    std::printf("model %s: %s parameters, %s MFLOP forward and %s MFLOP backward per image\n", m.spec.c_str(),
                core::format_count(m.parameter_count).c_str(), core::format_fixed(m.forward_flops() / 1e6, 2).c_str(),
                core::format_fixed(m.backward_flops() / 1e6, 2).c_str());
    std::printf("batch %lld, SGD learning rate %g, momentum %g, seed %llu\n", o.batch, o.learning_rate, o.momentum,
                o.seed);
    std::printf("%s: %s\n", std::string(engine.name()).c_str(), engine.implementation().c_str());
    // After setup (in the Trainer): cudnn knows by then whether the GPU can do TF32.
    std::printf("precision: %s\n", engine.precision().c_str());
    if (!core::kind_is_timed(engine.kind()))
        std::printf("note: %s runs the GPU kernels on the SIMT simulator, on this CPU: its images/s and times "
                    "are the simulation's, never a GPU speed; keep it to a small --limit and --model\n",
                    std::string(engine.name()).c_str());
    if (o.backend == "cpu-scalar" && data.train.count > 2000)
        std::printf("note: cpu-scalar is the plain reference loop, far too slow for whole epochs; "
                    "--limit 1000 keeps it short\n");
}

void print_epoch_columns() {
    std::printf("%5s %8s %10s %10s %10s %10s  %s\n", "epoch", "loss", "train acc", "test acc", "images/s", "time",
                "load average");
}

void print_epoch_row(const TrainOptions& o, const train::ModelDesc& m, const train::EpochReport& r) {
    std::printf("%5d %8.4f %10s %10s %10s %10s  %s\n", r.epoch, r.loss, percent(r.train_accuracy).c_str(),
                percent(r.test_accuracy).c_str(), core::format_fixed(r.images_per_second(), 0).c_str(),
                core::format_duration(r.train_ns).c_str(), load_average().c_str());
    if (o.layers) print_layer_times(m, r);
}

std::string epoch_json_fields(const TrainOptions& o, train::TrainEngine& engine, const train::ModelDesc& m,
                              const train::EpochReport& r) {
    const double gflops = r.images_per_second() * (m.forward_flops() + m.backward_flops()) / 1e9;
    return "\"backend\": " + json_string(std::string(engine.name())) + ", \"precision\": " +
           json_string(engine.precision()) + ", \"epoch\": " + std::to_string(r.epoch) +
           ", \"loss\": " + json_number(r.loss) + ", \"train_accuracy\": " + json_number(r.train_accuracy) +
           ", \"test_accuracy\": " + json_number(r.test_accuracy) + ", \"images\": " + std::to_string(r.images) +
           ", \"batch\": " + std::to_string(o.batch) + ", \"seed\": " + std::to_string(o.seed) +
           ", \"images_per_s\": " + json_number(r.images_per_second()) + ", \"gflops\": " + json_number(gflops) +
           ", \"train_ns\": " + std::to_string(r.train_ns) + ", \"test_ns\": " + std::to_string(r.test_ns) +
           ", \"load_average\": " + json_string(load_average());
}

}  // namespace gpulab::app
