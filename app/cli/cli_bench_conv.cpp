// `gpulab bench`, convolution part: a single-channel picture at 4096^2 with 3x3 and 7x7 filters
// and CNN layers (3x3, C=K=64, 56x56, batch 8; C=K=32/64 at 28x28 and 14x14, batch 1 and 64), every CPU and GPU backend through the lesson's
// own workload (core/workloads/conv2d_workload), GFLOP/s from declared flops over the median,
// the ratio to oneDNN (TARGETS.md: cpu-parallel >= 1.0x on one channel, >= 0.5x on 64 channels)
// and the implementation each backend ran. cpu-scalar would take seconds per sample on the big
// shapes, so above kScalarFlopLimit it is left out (saying so) and the same kernels are checked
// against it on a smaller shape first. Targets are measured here, never asserted in tests.
#include "cli.h"
#include "cli_bench_conv.h"

#include <cstdio>
#include <string>

#include "measure/format.h"
#include "gpu_backends.h"
#include "json_out.h"
#include "workloads/conv2d_workload.h"

namespace gpulab::app {

namespace {

// About a second of the plain loop on this box; larger shapes skip cpu-scalar.
constexpr double kScalarFlopLimit = 4e8;

struct ConvCase {
    std::string label;
    core::Conv2dParams params;
    bool timed;  // false: a correctness run against cpu-scalar only (small, few samples)
};

std::string stats_fields(const core::Stats& s) {
    return "\"median_ns\": " + std::to_string(s.median_ns) + ", \"min_ns\": " + std::to_string(s.min_ns) +
           ", \"max_ns\": " + std::to_string(s.max_ns) + ", \"samples\": " + std::to_string(s.samples);
}

core::Conv2dParams image_case(int64_t size, int64_t kernel) {
    core::Conv2dParams p;
    p.filter = "gaussian";
    p.kernel = kernel;
    p.height = p.width = size;
    return p;
}

core::Conv2dParams layer_case(int64_t batch, int64_t channels, int64_t size) {
    core::Conv2dParams p;
    p.layer_mode = true;
    p.batch = batch;
    p.channels = p.filters = channels;
    p.height = p.width = size;
    p.kernel = 3;
    return p;
}

void print_records(bool& first, const core::Conv2dRun& run) {
    const core::Conv2dDesc& d = run.desc;
    for (const auto& r : run.reports) {
        if (!r.ran) continue;
        json_record(first, "\"op\": \"conv2d\", \"backend\": " + json_string(r.backend) +
                               ", \"batch\": " + std::to_string(d.batch) + ", \"channels\": " +
                               std::to_string(d.channels) + ", \"filters\": " + std::to_string(d.filters) +
                               ", \"kernel\": " + std::to_string(d.kernel) + ", \"height\": " +
                               std::to_string(d.height) + ", \"width\": " + std::to_string(d.width) +
                               ", \"stride\": " + std::to_string(d.stride) + ", " + stats_fields(r.compute) +
                               ", \"gflops\": " + json_number(r.gflops) + ", \"implementation\": " +
                               json_string(r.implementation) + ", \"reference\": " +
                               json_string(run.reference_backend) + ", \"matches_reference\": " +
                               (r.check.pass ? "true" : "false") + ", \"max_abs_error\": " +
                               json_number(r.check.max_abs_error));
    }
}

void print_table(const std::string& label, const core::Conv2dRun& run) {
    const double flops = run.desc.flops();
    if (flops >= 1e8)
        std::printf("\n%s: %s, %.2f GFLOP per run\n", label.c_str(), run.desc.to_string().c_str(), flops / 1e9);
    else
        std::printf("\n%s: %s, %.2f MFLOP per run\n", label.c_str(), run.desc.to_string().c_str(), flops / 1e6);
    std::printf("  %-13s %10s %22s %9s %9s  %s\n", "backend", "median", "min .. max", "GFLOP/s", "vs oneDNN",
                "check; implementation");
    double onednn = 0.0;
    for (const auto& r : run.reports) {
        if (r.ran && r.backend == "cpu-onednn") onednn = r.gflops;
    }
    for (const auto& r : run.reports) {
        if (!r.ran) {
            std::printf("  %-13s not run: %s\n", r.backend.c_str(),
                        r.error.empty() ? r.availability.reason.c_str() : r.error.c_str());
            continue;
        }
        const std::string range =
            core::format_duration(r.compute.min_ns) + " .. " + core::format_duration(r.compute.max_ns);
        const std::string ratio = onednn > 0 ? core::format_ratio(r.gflops / onednn) : "-";
        std::printf("  %-13s %10s %22s %9.1f %9s  %s; %s\n", r.backend.c_str(),
                    core::format_duration(r.compute.median_ns).c_str(), range.c_str(), r.gflops, ratio.c_str(),
                    r.check.verdict.c_str(), r.implementation.c_str());
    }
}

}  // namespace

int bench_conv(const BenchOptions& o, const std::vector<core::Backend*>& shared_backends, bool& first) {
    // The naive one-thread-per-output CUDA kernel exists only for convolution; it runs beside the
    // tiled one unless the user picked backends by name.
    std::vector<core::Backend*> backends = shared_backends;
    core::BackendList conv_only = gpu::make_conv2d_extra_backends();
    if (o.backends.empty()) {
        for (const auto& b : conv_only) backends.push_back(b.get());
    }
    std::vector<ConvCase> cases;
    if (o.quick) {
        cases.push_back({"one channel", image_case(256, 3), true});
        cases.push_back({"CNN layer", layer_case(2, 8, 16), true});
    } else {
        // The small shapes check the same code paths against the plain loop; the big ones are timed.
        cases.push_back({"check, one channel 3x3", image_case(512, 3), false});
        cases.push_back({"check, one channel 7x7", image_case(512, 7), false});
        cases.push_back({"check, CNN layer", layer_case(1, 64, 28), false});
        cases.push_back({"one channel 3x3", image_case(4096, 3), true});
        cases.push_back({"one channel 7x7", image_case(4096, 7), true});
        cases.push_back({"CNN layer 3x3", layer_case(8, 64, 56), true});
        // The training lesson's layers (issue 17): small images, 32-64 channels, batch 1 and 64.
        for (int64_t batch : {1, 64}) {
            for (int64_t size : {28, 14}) {
                for (int64_t channels : {32, 64}) {
                    cases.push_back({"small CNN layer 3x3", layer_case(batch, channels, size), true});
                }
            }
        }
    }
    int failures = 0;
    if (!o.json) {
        std::printf("\nConvolution (cross-correlation, zero padding, stride 1): GFLOP/s = 2*N*K*P*Q*C*R*S / median "
                    "compute time; cpu-onednn, and cpu-parallel where it says \"layouts converted untimed\", time the "
                    "convolution in their own working layouts (the conversions from and to N,C,H,W are excluded)\n");
    }
    for (const ConvCase& c : cases) {
        core::MeasureConfig config;
        config.measure_limits = false;
        config.warmup = 1;
        config.min_samples = o.quick ? 3 : (c.timed ? 10 : 2);
        config.max_samples = o.quick ? 3 : (c.timed ? 20 : 2);
        config.time_budget_ns = o.quick ? 0 : (c.timed ? 800'000'000 : 0);
        std::vector<core::Backend*> chosen;
        core::Conv2dDesc shape;
        shape.batch = c.params.layer_mode ? c.params.batch : 1;
        shape.channels = c.params.layer_mode ? c.params.channels : 1;
        shape.filters = c.params.layer_mode ? c.params.filters : 1;
        shape.height = c.params.height;
        shape.width = c.params.width;
        shape.kernel = c.params.kernel;
        const bool skip_scalar = shape.flops() > kScalarFlopLimit;
        for (core::Backend* b : backends) {
            if (skip_scalar && b->name() == "cpu-scalar") continue;
            chosen.push_back(b);
        }
        if (skip_scalar && !o.json) {
            std::printf("\n(cpu-scalar skipped on %s: %.1f GFLOP per run would take seconds per sample; the other "
                        "backends were checked against it on the smaller shapes above)",
                        c.label.c_str(), shape.flops() / 1e9);
        }
        bench_progress("bench: conv2d %s...\n", c.label.c_str());
        const core::Conv2dRun run = core::run_conv2d(c.params, chosen, config);
        if (!run.ok) {
            std::fprintf(stderr, "gpulab: conv2d %s: %s\n", c.label.c_str(), run.error.c_str());
            ++failures;
            continue;
        }
        for (const auto& r : run.reports) failures += (r.ran && !r.check.pass) ? 1 : 0;
        if (o.json) {
            print_records(first, run);
        } else {
            print_table(c.label, run);
        }
    }
    return failures;
}

}  // namespace gpulab::app
