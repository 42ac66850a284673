// `gpulab bench`: every activation on every available backend at 2^20 and 2^26 elements, with
// median, spread, GB/s and the fraction of the copy bandwidth measured in the same run.
// The numbers come from the same workload code the GUI uses (core/workloads/activation_workload).
// Targets live in ../shared/TARGETS.md and results in docs/benchmarks.md; nothing here is a test.
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "shell/backend_set.h"
#include "cli.h"
#include "cli_bench_conv.h"
#include "cli_bench_puzzles.h"
#include "cli_bench_sim.h"
#include "cli_bench_train.h"
#include "cli_bench_latency.h"
#include "cli_bench_simd.h"
#include "cli_bench_stop.h"
#include "cli_bench_tensor.h"
#include "measure/format.h"
#include "gpu_backends.h"
#include "json_out.h"
#include "measure/machine_info.h"
#include "workloads/activation_workload.h"

namespace gpulab::app {

namespace {

void print_json_record(bool& first, const core::ActivationRun& run, const core::BackendReport& r) {
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "\"op\": %s, \"backend\": %s, \"elements\": %lld, \"median_ns\": %lld, \"min_ns\": %lld, "
                  "\"max_ns\": %lld, \"samples\": %d, \"upload_median_ns\": %lld, \"compute_median_ns\": %lld, "
                  "\"download_median_ns\": %lld, \"gbps\": %s, \"gbps_with_transfers\": %s, \"limit\": %s, "
                  "\"limit_gbps\": %s, \"fraction_of_limit\": %s, \"matches_reference\": %s, \"max_abs_error\": %s",
                  json_string(std::string(core::activation_name(run.op.activation))).c_str(),
                  json_string(r.backend).c_str(), static_cast<long long>(run.input.size()),
                  static_cast<long long>(r.total.median_ns), static_cast<long long>(r.total.min_ns),
                  static_cast<long long>(r.total.max_ns), r.total.samples, static_cast<long long>(r.upload.median_ns),
                  static_cast<long long>(r.compute.median_ns), static_cast<long long>(r.download.median_ns),
                  json_number(r.gbps).c_str(), json_number(r.gbps_with_transfers).c_str(),
                  json_string(r.limit.name).c_str(), json_number(r.limit.gbps).c_str(),
                  json_number(r.fraction_of_limit).c_str(), r.check.pass ? "true" : "false",
                  json_number(r.check.max_abs_error).c_str());
    json_record(first, buf);
}

void print_table(const core::ActivationRun& run) {
    std::printf("\n%s, %s elements (%s in + %s out)\n", run.op.label().c_str(),
                core::format_pow2(run.input.size()).c_str(), core::format_bytes(static_cast<double>(run.input.bytes())).c_str(),
                core::format_bytes(static_cast<double>(run.input.bytes())).c_str());
    std::printf("  %-13s %10s %22s %10s %10s %8s %9s  %s\n", "backend", "median", "min .. max", "GB/s", "limit GB/s",
                "% limit", "vs scalar", "check / limit measured");
    int64_t scalar_ns = 0;
    for (const auto& r : run.reports) {
        if (r.ran && r.backend == "cpu-scalar") scalar_ns = r.total.median_ns;
    }
    for (const auto& r : run.reports) {
        if (!r.ran) {
            std::printf("  %-13s not run: %s\n", r.backend.c_str(),
                        r.error.empty() ? r.availability.reason.c_str() : r.error.c_str());
            continue;
        }
        std::string range = core::format_duration(r.total.min_ns) + " .. " + core::format_duration(r.total.max_ns);
        std::string speedup = scalar_ns > 0 && r.total.median_ns > 0
                                  ? core::format_ratio(static_cast<double>(scalar_ns) / static_cast<double>(r.total.median_ns))
                                  : "-";
        char limit[32] = "-", frac[32] = "-";
        if (r.limit.ok) {
            std::snprintf(limit, sizeof limit, "%.1f", r.limit.gbps);
            std::snprintf(frac, sizeof frac, "%.0f %%", 100.0 * r.fraction_of_limit);
        }
        std::printf("  %-13s %10s %22s %10.1f %10s %8s %9s  %s; %s\n", r.backend.c_str(),
                    core::format_duration(r.total.median_ns).c_str(), range.c_str(), r.gbps, limit, frac,
                    speedup.c_str(), r.check.verdict.c_str(), r.limit.ok ? r.limit.name.c_str() : r.limit.error.c_str());
    }
}

}  // namespace

void bench_progress(const char* format, ...) {
    std::fflush(stdout);
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
}

int cmd_bench(const BenchOptions& o) {
    std::vector<core::Activation> ops;
    for (const auto& name : o.ops) {
        auto a = core::parse_activation(name);
        if (!a) {
            std::fprintf(stderr, "gpulab: unknown op '%s' (expected relu, leaky-relu, sigmoid, tanh or gelu)\n", name.c_str());
            return kExitUsage;
        }
        ops.push_back(*a);
    }
    if (ops.empty()) ops.assign(core::kAllActivations.begin(), core::kAllActivations.end());

    core::BackendList all = make_all_backends();
    std::vector<core::Backend*> chosen;
    for (const auto& b : all) {
        bool wanted = o.backends.empty() || b->name() == "cpu-scalar";  // the reference always runs
        for (const auto& name : o.backends) wanted = wanted || b->name() == name;
        // Bench numbers are speeds: a simulated kernel (cuda-sim) has its own suite, `--suite sim`.
        if (!core::kind_is_timed(b->kind())) {
            if (wanted && !o.backends.empty())
                std::fprintf(stderr, "gpulab: %s is the CUDA kernel simulated on the CPU, not a speed to bench; "
                                     "its own speed is `gpulab bench --suite sim`\n",
                             std::string(b->name()).c_str());
            continue;
        }
        if (wanted) chosen.push_back(b.get());
    }
    for (const auto& name : o.backends) {
        bool known = false;
        for (const auto& b : all) known = known || b->name() == name;
        if (!known) {
            std::fprintf(stderr, "gpulab: unknown backend '%s'\n", name.c_str());
            return kExitUsage;
        }
    }

    if (o.suite != "all" && o.suite != "activation" && o.suite != "latency" && o.suite != "simd" &&
        o.suite != "conv" && o.suite != "sim" && o.suite != "train" && o.suite != "puzzles" && o.suite != "tensor" && o.suite != "stop") {
        std::fprintf(stderr, "gpulab: unknown suite '%s' (expected activation, latency, simd, conv, sim, train, puzzles, tensor, stop or all)\n",
                     o.suite.c_str());
        return kExitUsage;
    }
    std::vector<long long> sizes = o.sizes;
    if (sizes.empty()) sizes = o.quick ? std::vector<long long>{1LL << 16} : std::vector<long long>{1LL << 20, 1LL << 26};
    core::MeasureConfig config;
    config.warmup = o.quick ? 1 : 2;
    config.min_samples = o.quick ? 3 : 10;
    config.max_samples = o.quick ? 3 : 40;
    config.time_budget_ns = o.quick ? 0 : 400'000'000;

    const core::MachineInfo& m = core::host_machine();
    if (!o.json) {
        std::printf("gpulab %s bench on %s (%d threads); GPU: %s\n", GPULAB_VERSION, m.cpu_model.c_str(),
                    m.hardware_threads, gpu::probe().device_ok ? gpu::probe().name.c_str() : gpu::probe().reason.c_str());
        std::printf("CPU SIMD: %s\n", cpu::isa_summary().c_str());
        std::printf("median of >= %d samples after %d warm-up runs; GB/s counts one read and one write per element\n",
                    config.min_samples, config.warmup);
    } else {
        std::printf("[");
    }
    bool first = true;
    int failures = 0;
    if (o.suite == "latency" || o.suite == "simd" || o.suite == "conv" || o.suite == "sim" || o.suite == "train" ||
        o.suite == "puzzles" || o.suite == "tensor" || o.suite == "stop")
        sizes.clear();
    for (long long n : sizes) {
        for (core::Activation a : ops) {
            core::ActivationParams p;
            p.activation = a;
            p.elements = n;
            bench_progress("bench: %s at %s elements...\n", std::string(core::activation_name(a)).c_str(),
                         core::format_pow2(n).c_str());
            core::ActivationRun run = core::run_activation(p, chosen, config);
            if (!run.ok) {
                std::fprintf(stderr, "gpulab: %s at %lld elements: %s\n", std::string(core::activation_name(a)).c_str(), n,
                             run.error.c_str());
                ++failures;
                continue;
            }
            if (o.json) {
                for (const auto& r : run.reports) {
                    if (r.ran) print_json_record(first, run, r);
                }
            } else {
                print_table(run);
            }
            for (const auto& r : run.reports) failures += (r.ran && !r.check.pass) ? 1 : 0;
        }
    }
    if (o.suite == "all" || o.suite == "latency") bench_latency(o, chosen, first);
    if (o.suite == "all" || o.suite == "simd") failures += bench_simd(o, first);
    if (o.suite == "all" || o.suite == "conv") failures += bench_conv(o, chosen, first);
    if (o.suite == "sim") failures += bench_sim(o, first);  // the simulator's own time: not in "all"
    if (o.suite == "puzzles") failures += bench_puzzles(o, first);  // needs g++; the simulator's time
    if (o.suite == "all" || o.suite == "train") failures += bench_train(o, first);
    if (o.suite == "all" || o.suite == "tensor") failures += bench_tensor(o, first);
    if (o.suite == "stop") failures += bench_stop(o, first);  // how soon a run stops: not in "all"
    if (o.json) std::printf("\n]\n");
    return failures == 0 ? kExitOk : kExitFailure;
}

}  // namespace gpulab::app
