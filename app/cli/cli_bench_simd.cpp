// `gpulab bench`, SIMD-vs-MIMD part: on the CPU, one core scalar vs vectorised (ReLU and sigmoid
// at 2^20, with the instruction set that ran) and four different tasks on four threads vs the
// same tasks one after another; on the GPU, the divergence kernel for every pattern, its measured
// slowdown over the uniform pattern next to the emulator's theoretical paths per warp. The same
// core and kernels code the lesson shows; TARGETS.md says what to expect ("warp divergence").
#include <cstdio>
#include <string>
#include <vector>

#include "cli.h"
#include "cli_bench_simd.h"
#include "probes/divergence.h"
#include "measure/format.h"
#include "gpu_backends.h"
#include "gpu_model/gpu_model.h"
#include "json_out.h"
#include "workloads/simd_mimd.h"

namespace gpulab::app {

namespace {

constexpr int kMimdThreads = 4;  // one thread per kind of task: four instruction streams

std::string stats_fields(const core::Stats& s) {
    return "\"median_ns\": " + std::to_string(s.median_ns) + ", \"min_ns\": " + std::to_string(s.min_ns) +
           ", \"max_ns\": " + std::to_string(s.max_ns) + ", \"samples\": " + std::to_string(s.samples);
}

int cpu_simd_part(const BenchOptions& o, bool& first) {
    core::MeasureConfig config;
    config.warmup = o.quick ? 1 : 2;
    config.min_samples = o.quick ? 3 : 10;
    config.max_samples = o.quick ? 3 : 40;
    config.time_budget_ns = o.quick ? 0 : 300'000'000;
    config.measure_limits = false;
    const int64_t elements = o.quick ? (int64_t{1} << 16) : (int64_t{1} << 20);
    int failures = 0;
    if (!o.json) {
        std::printf("\nSIMD on one core: the plain loop vs the vector loop, %s elements, one thread\n",
                    core::format_pow2(elements).c_str());
        std::printf("  %-10s %-9s %6s %12s %12s %9s  %s\n", "activation", "ISA", "lanes", "scalar", "vector",
                    "speedup", "check");
    }
    for (core::Activation a : {core::Activation::Relu, core::Activation::Sigmoid}) {
        const std::string name(core::activation_name(a));
        bench_progress("bench: scalar vs SIMD %s at %s elements...\n", name.c_str(),
                     core::format_pow2(elements).c_str());
        const core::SimdComparison r = core::measure_simd_vs_scalar(a, elements, config);
        if (!r.ok) {
            std::fprintf(stderr, "gpulab: scalar vs SIMD %s: %s\n", name.c_str(), r.error.c_str());
            ++failures;
            continue;
        }
        failures += r.results_equal ? 0 : 1;
        if (o.json) {
            json_record(first, "\"op\": \"cpu-simd\", \"backend\": \"cpu-simd\", \"activation\": " + json_string(name) +
                                   ", \"elements\": " + std::to_string(r.elements) + ", \"isa\": " +
                                   json_string(r.isa) + ", \"lanes\": " + std::to_string(r.lanes) + ", " +
                                   stats_fields(r.simd) + ", \"scalar_median_ns\": " +
                                   std::to_string(r.scalar.median_ns) + ", \"speedup\": " + json_number(r.speedup) +
                                   ", \"matches_reference\": " + (r.results_equal ? "true" : "false"));
        } else {
            std::printf("  %-10s %-9s %6d %12s %12s %9s  %s\n", name.c_str(), r.isa.c_str(), r.lanes,
                        core::format_duration(r.scalar.median_ns).c_str(),
                        core::format_duration(r.simd.median_ns).c_str(), core::format_ratio(r.speedup).c_str(),
                        r.results_equal ? "match" : "MISMATCH with the scalar loop");
        }
    }
    return failures;
}

int cpu_mimd_part(const BenchOptions& o, bool& first) {
    bench_progress("bench: %d different tasks on %d threads...\n", kMimdThreads, kMimdThreads);
    const core::MimdTimeline t = core::run_mimd_demo(kMimdThreads, 1);
    if (!t.ok) {
        std::fprintf(stderr, "gpulab: MIMD demo: %s\n", t.error.c_str());
        return 1;
    }
    const double ratio = t.wall_ns > 0 ? static_cast<double>(t.sequential_ns) / static_cast<double>(t.wall_ns) : 0.0;
    if (o.json) {
        json_record(first, "\"op\": \"cpu-mimd\", \"backend\": \"cpu-threads\", \"threads\": " +
                               std::to_string(t.threads) + ", \"wall_ns\": " + std::to_string(t.wall_ns) +
                               ", \"sequential_ns\": " + std::to_string(t.sequential_ns) +
                               ", \"speedup\": " + json_number(ratio) +
                               ", \"spans\": " + std::to_string(t.spans.size()));
        return 0;
    }
    std::printf("\nMIMD: %d different tasks (SIMD sigmoid, primes, list walk, string hashing) at once vs one by one\n",
                t.threads);
    std::printf("  together on %d threads %s, one after another %s: %s\n", t.threads,
                core::format_duration(t.wall_ns).c_str(), core::format_duration(t.sequential_ns).c_str(),
                core::format_ratio(ratio).c_str());
    return 0;
}

void gpu_divergence_part(const BenchOptions& o, bool& first) {
    // Sized from the device, so that --quick gives the same factors as a full run: fill every SM
    // several times over, then one uniform run to size the work per path (core::divergence_elements).
    const gpu::GpuProbe& g = gpu::probe();
    const int64_t elements =
        core::divergence_elements(g.device_ok ? g.sm_count : 0,
                                  g.device_ok ? core::max_threads_per_sm(g.cc_major, g.cc_minor) : 0,
                                  o.quick ? (int64_t{1} << 16) : (int64_t{1} << 20));
    int iterations = o.quick ? 64 : 256;
    const int samples = o.quick ? 3 : 20;
    if (g.device_ok) {
        const gpu::DivergenceRun first = gpu::run_divergence(simt::Pattern::Uniform, elements, iterations, 1, 0);
        if (first.ok) iterations = core::divergence_iterations(iterations, first.kernel.median_ns);
    }
    const int warps = static_cast<int>(elements / simt::kWarpSize);
    if (!o.json) {
        std::printf("\nWarp divergence: %s threads, %d rounds of 4 dependent FMAs per path; factor = kernel median / "
                    "uniform median\n",
                    core::format_pow2(elements).c_str(), iterations);
    }
    bench_progress("bench: divergence kernel, %d patterns...\n", simt::kPatternCount);
    std::vector<gpu::DivergenceRun> runs;
    for (simt::Pattern p : core::kAllPatterns) {
        runs.push_back(gpu::run_divergence(p, elements, iterations, samples, 0));
        if (!runs.back().ok) {
            // One reason is enough: without a device every pattern fails the same way.
            const std::string& why = runs.back().error;
            if (o.json) bench_progress("bench: divergence not measured: %s\n", why.c_str());
            else std::printf("  not measured: %s\n", why.c_str());
            return;
        }
    }
    const double uniform_ns = static_cast<double>(runs.front().kernel.median_ns);
    if (!o.json) {
        std::printf("  %-12s %12s %22s %10s %12s\n", "pattern", "median", "min .. max", "measured", "theoretical");
    }
    for (const gpu::DivergenceRun& r : runs) {
        const double measured = uniform_ns > 0 ? static_cast<double>(r.kernel.median_ns) / uniform_ns : 0.0;
        const double theoretical = core::theoretical_factor(r.pattern, warps);
        const std::string name(core::pattern_name(r.pattern));
        if (o.json) {
            json_record(first, "\"op\": \"divergence\", \"backend\": \"cuda-kernel\", \"pattern\": " +
                                   json_string(name) + ", \"elements\": " + std::to_string(r.elements) +
                                   ", \"iterations\": " + std::to_string(r.iterations) + ", " + stats_fields(r.kernel) +
                                   ", \"measured_factor\": " + json_number(measured) +
                                   ", \"theoretical_factor\": " + json_number(theoretical));
        } else {
            const std::string range =
                core::format_duration(r.kernel.min_ns) + " .. " + core::format_duration(r.kernel.max_ns);
            std::printf("  %-12s %12s %22s %9.2fx %11.2fx\n", name.c_str(),
                        core::format_duration(r.kernel.median_ns).c_str(), range.c_str(), measured, theoretical);
        }
    }
}

}  // namespace

int bench_simd(const BenchOptions& o, bool& first) {
    int failures = cpu_simd_part(o, first);
    failures += cpu_mimd_part(o, first);
    gpu_divergence_part(o, first);
    return failures;
}

}  // namespace gpulab::app
