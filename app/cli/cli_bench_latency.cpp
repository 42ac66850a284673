// `gpulab bench`, latency part: the ReLU size sweep with its crossover sizes, and the GPU's fixed
// costs (empty-kernel launch, launch + sync, CUDA Graph per-kernel cost, pinned and pageable
// copies, context creation). The same core sweep and kernels probes the latency lesson shows.
#include <cstdio>
#include <string>

#include "cli.h"
#include "cli_bench_latency.h"
#include "measure/format.h"
#include "gpu_backends.h"
#include "json_out.h"
#include "probes/latency_probe.h"
#include "workloads/latency_sweep.h"

namespace gpulab::app {

namespace {

std::string stats_fields(const core::Stats& s) {
    return "\"median_ns\": " + std::to_string(s.median_ns) + ", \"min_ns\": " + std::to_string(s.min_ns) +
           ", \"max_ns\": " + std::to_string(s.max_ns) + ", \"samples\": " + std::to_string(s.samples);
}

std::string elements_or_none(const std::optional<double>& n) {
    return n ? core::format_count(static_cast<int64_t>(*n + 0.5)) + " elements" : std::string("never (in this range)");
}

void sweep_part(const BenchOptions& o, const std::vector<core::Backend*>& backends, bool& first) {
    core::SweepConfig config;
    config.min_exp = 4;
    config.max_exp = o.quick ? 12 : 26;
    config.time_per_point_ns = o.quick ? 0 : 60'000'000;
    config.min_samples_small = o.quick ? 3 : 10;
    config.min_samples_large = o.quick ? 3 : 10;  // the bench keeps the 10-sample minimum even where one call is long
    bench_progress("bench: relu size sweep 2^%d..2^%d...\n", config.min_exp, config.max_exp);
    core::SweepResult r = core::run_latency_sweep(config, backends);
    if (!r.ok) {
        std::fprintf(stderr, "gpulab: sweep failed: %s\n", r.error.c_str());
        return;
    }
    const core::SweepCrossover x = core::sweep_crossover(r);
    if (o.json) {
        for (std::size_t b = 0; b < r.backends.size(); ++b) {
            for (std::size_t i = 0; i < r.plan.sizes.size(); ++i) {
                const core::SweepCell& c = r.cells[b][i];
                if (!c.ran) continue;
                json_record(first, "\"op\": \"sweep-relu\", \"backend\": " + json_string(r.backends[b]) +
                                       ", \"elements\": " + std::to_string(r.plan.sizes[i]) + ", " +
                                       stats_fields(c.total) +
                                       ", \"compute_median_ns\": " + std::to_string(c.compute.median_ns));
            }
        }
        json_record(first, "\"op\": \"crossover\", \"backend\": " + json_string(x.gpu_backend) +
                               ", \"with_transfers_elements\": " +
                               (x.with_transfers ? json_number(*x.with_transfers) : "null") +
                               ", \"resident_elements\": " + (x.resident ? json_number(*x.resident) : "null") +
                               ", \"note\": " +
                               json_string(x.gpu_backend.empty() ? "no GPU backend ran: " + gpu::probe().reason : ""));
        return;
    }
    std::printf("\nReLU size sweep: median time per run (total, with copies for GPU backends)\n  %-10s", "elements");
    for (const auto& name : r.backends) std::printf(" %13s", name.c_str());
    std::printf("\n");
    for (std::size_t i = 0; i < r.plan.sizes.size(); ++i) {
        std::printf("  %-10s", core::format_pow2(r.plan.sizes[i]).c_str());
        for (std::size_t b = 0; b < r.backends.size(); ++b) {
            const core::SweepCell& c = r.cells[b][i];
            std::printf(" %13s", c.ran ? core::format_duration(c.total.median_ns).c_str() : "-");
        }
        std::printf("\n");
    }
    if (!r.plan.capped.empty()) std::printf("  (%s)\n", r.plan.capped.c_str());
    if (x.gpu_backend.empty()) {
        std::printf("  crossover: no GPU backend ran (%s)\n", gpu::probe().reason.c_str());
    } else {
        std::printf("  %s beats the fastest CPU backend above %s counting copies, above %s with data resident\n",
                    x.gpu_backend.c_str(), elements_or_none(x.with_transfers).c_str(),
                    elements_or_none(x.resident).c_str());
    }
}

void gpu_part(const BenchOptions& o, bool& first) {
    const gpu::ColdStart cold = gpu::cold_start();
    const gpu::LaunchCosts launch = gpu::measure_launch_costs(32, o.quick ? 10 : 50);
    const gpu::CopyBandwidth copy = gpu::measure_copy_bandwidth(o.quick ? (std::size_t{4} << 20) : (std::size_t{256} << 20),
                                                                o.quick ? 3 : 10);
    if (o.json) {
        if (cold.ok)
            json_record(first, "\"op\": \"cuda-context\", \"backend\": \"cuda\", \"median_ns\": " +
                                   std::to_string(cold.context_ns) + ", \"samples\": 1");
        if (launch.ok) {
            json_record(first, "\"op\": \"launch-empty\", \"backend\": \"cuda\", " + stats_fields(launch.enqueue));
            json_record(first, "\"op\": \"launch-sync\", \"backend\": \"cuda\", " + stats_fields(launch.launch_and_sync));
            json_record(first, "\"op\": \"separate-per-kernel\", \"backend\": \"cuda\", \"kernels\": " +
                                   std::to_string(launch.graph_kernels) + ", " + stats_fields(launch.separate_per_kernel));
            json_record(first, "\"op\": \"graph-per-kernel\", \"backend\": \"cuda\", \"kernels\": " +
                                   std::to_string(launch.graph_kernels) + ", " + stats_fields(launch.graph_per_kernel));
        }
        if (copy.ok) {
            const std::string bytes = ", \"bytes\": " + std::to_string(copy.bytes);
            json_record(first, "\"op\": \"copy-h2d\", \"backend\": \"cuda\", \"memory\": \"pinned\", \"gbps\": " +
                                   json_number(copy.h2d_pinned_gbps) + bytes);
            json_record(first, "\"op\": \"copy-d2h\", \"backend\": \"cuda\", \"memory\": \"pinned\", \"gbps\": " +
                                   json_number(copy.d2h_pinned_gbps) + bytes);
            json_record(first, "\"op\": \"copy-h2d\", \"backend\": \"cuda\", \"memory\": \"pageable\", \"gbps\": " +
                                   json_number(copy.h2d_pageable_gbps) + bytes);
            json_record(first, "\"op\": \"copy-d2h\", \"backend\": \"cuda\", \"memory\": \"pageable\", \"gbps\": " +
                                   json_number(copy.d2h_pageable_gbps) + bytes);
        }
        if (!launch.ok) bench_progress("bench: GPU fixed costs not measured: %s\n", launch.error.c_str());
        return;
    }
    std::printf("\nGPU fixed costs\n");
    if (cold.ok) std::printf("  CUDA context creation (first call)   %s\n", core::format_duration(cold.context_ns).c_str());
    else std::printf("  CUDA context creation: not measured: %s\n", cold.error.c_str());
    if (launch.ok) {
        std::printf("  empty kernel launch (enqueue)        %s median (%s .. %s)\n",
                    core::format_duration(launch.enqueue.median_ns).c_str(),
                    core::format_duration(launch.enqueue.min_ns).c_str(),
                    core::format_duration(launch.enqueue.max_ns).c_str());
        std::printf("  empty kernel launch + sync           %s median\n",
                    core::format_duration(launch.launch_and_sync.median_ns).c_str());
        std::printf("  %d tiny kernels, one by one          %s per kernel\n", launch.graph_kernels,
                    core::format_duration(launch.separate_per_kernel.median_ns).c_str());
        std::printf("  the same in one CUDA Graph           %s per kernel\n",
                    core::format_duration(launch.graph_per_kernel.median_ns).c_str());
    } else {
        std::printf("  launch costs: not measured: %s\n", launch.error.c_str());
    }
    if (copy.ok) {
        std::printf("  copies of %s: H2D pinned %s, pageable %s; D2H pinned %s, pageable %s\n",
                    core::format_bytes(static_cast<double>(copy.bytes)).c_str(),
                    core::format_gbps(copy.h2d_pinned_gbps).c_str(), core::format_gbps(copy.h2d_pageable_gbps).c_str(),
                    core::format_gbps(copy.d2h_pinned_gbps).c_str(), core::format_gbps(copy.d2h_pageable_gbps).c_str());
    } else {
        std::printf("  copy bandwidth: not measured: %s\n", copy.error.c_str());
    }
}

}  // namespace

void bench_latency(const BenchOptions& o, const std::vector<core::Backend*>& backends, bool& first) {
    sweep_part(o, backends, first);
    gpu_part(o, first);
}

}  // namespace gpulab::app
