// `gpulab bench --suite tensor` (issue 29 part 4, issue 45): matrix-product GFLOP/s per precision and
// backend on the CPU at 256^3, 512^3 and 1024^3, then the two FP32 rows alone at 2048^3 (and 4096^3 with
// `--gemm-large`; `--quick`: 128^3, 3 samples; `--gemm-size N` sets n instead, every row;
// `--gemm-fp32-only`: the FP32 rows alone, for scripts/gemm-vs-openblas.py):
// cpu-parallel FP32 (our packed product on all cores), our BF16 kernels (AMX, VDPBF16PS), oneDNN's
// matmul in FP32 and in BF16. Each row names the path that ran, native or emulated, or why it did not run; median
// and min .. max of the samples;
// BF16 / FP32 of the same backend, and ours / oneDNN's BF16, the ratios TARGETS.md sets (">= 1.5x" at
// 1024^3 where the CPU has AVX512_BF16; ">= 0.8x"). The numbers come from core/workloads/tensor_speed,
// which the tensor lesson can show; results in docs/benchmarks.md. Then the four gpu-cublas rows
// (kernels/libraries/cublas_gemm_precision.h): cuBLAS in FP32, TF32, FP16, BF16, or why not run.
// Last, the FP32 ladder (core/workloads/gemm_ladder.h) at 512^3 (`--quick`: 64^3): naive loops, loop
// order, cache blocking, packing + micro-kernel, threads, each with its fraction of the FMA peak
// measured in the same run.
#include "cli_bench_tensor.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "json_out.h"
#include "libraries/cublas_gemm_precision.h"
#include "mma_gemm_rows.h"
#include "measure/format.h"
#include "workloads/gemm_ladder.h"
#include "workloads/tensor_speed.h"

namespace gpulab::app {

namespace {

std::string gflops_text(double v) { return core::format_fixed(v, v >= 100 ? 0 : 1); }

std::string ratio_json(double r) { return r > 0 ? json_number(r) : "null"; }

struct SizePlan {
    int64_t n = 0;
    core::GemmRows rows = core::GemmRows::All;
};

// Every row at the sizes asked for (or 256, 512, 1024); past the caches, the FP32 rows alone, which are
// what issue 45 compares: 2048^3 always, 4096^3 with --gemm-large (half a second a product on 2 cores).
std::vector<SizePlan> size_plan(const BenchOptions& o) {
    std::vector<SizePlan> plan;
    const core::GemmRows rows = o.gemm_fp32_only ? core::GemmRows::Fp32Only : core::GemmRows::All;
    if (!o.gemm_sizes.empty()) {
        for (long long n : o.gemm_sizes) plan.push_back({n, rows});
    } else if (o.quick) {
        plan.push_back({128, rows});
    } else {
        for (int64_t n : {256, 512, 1024}) plan.push_back({n, rows});
        plan.push_back({2048, core::GemmRows::Fp32Only});
    }
    if (o.gemm_large) plan.push_back({4096, core::GemmRows::Fp32Only});
    return plan;
}

// One table (or JSON records) of a size's rows. Returns the failed checks (outside the bound, or failed).
int print_rows(const BenchOptions& o, bool& first, const core::GemmSpeedRun& run) {
    const int64_t n = run.size;
    int failures = 0;
    if (!o.json) {
        std::printf("\n%lld x %lld x %lld\n", static_cast<long long>(n), static_cast<long long>(n),
                    static_cast<long long>(n));
        std::printf("  %-13s %-5s %10s %9s %17s  %-7s %s\n", "backend", "input", "median", "GFLOP/s",
                    "GFLOP/s min..max", "check", "path");
    }
    for (const core::GemmSpeedRow& r : run.rows) {
        const std::string precision = core::format_label(r.inputs);
        if (!r.error.empty()) {
            std::fprintf(stderr, "gpulab: %s %s at %lld^3: %s\n", r.backend.c_str(), precision.c_str(),
                         static_cast<long long>(n), r.error.c_str());
            ++failures;
        }
        if (r.ran && !r.check_pass) ++failures;
        if (o.json) {
            json_record(first, "\"op\": \"gemm\", \"backend\": " + json_string(r.backend) +
                                   ", \"inputs\": " + json_string(core::format_id(r.inputs)) +
                                   ", \"accumulate\": \"fp32\", \"size\": " + std::to_string(n) +
                                   ", \"ran\": " + (r.ran ? "true" : "false") +
                                   ", \"native\": " + (r.native ? "true" : "false") +
                                   ", \"instruction\": " + json_string(r.instruction) +
                                   ", \"path\": " + json_string(r.ran ? r.path : "not run: " + r.path) +
                                   ", \"median_ns\": " + std::to_string(r.time.median_ns) +
                                   ", \"min_ns\": " + std::to_string(r.time.min_ns) +
                                   ", \"max_ns\": " + std::to_string(r.time.max_ns) +
                                   ", \"samples\": " + std::to_string(r.time.samples) +
                                   ", \"gflops\": " + json_number(r.gflops) +
                                   ", \"gflops_min\": " + json_number(r.gflops_min) +
                                   ", \"gflops_max\": " + json_number(r.gflops_max) +
                                   ", \"matches_reference\": " + (r.check_pass ? "true" : "false") +
                                   ", \"worst_error_over_bound\": " + json_number(r.worst_error_ratio));
        } else if (!r.ran) {
            std::printf("  %-13s %-5s not run: %s\n", r.backend.c_str(), precision.c_str(),
                        r.error.empty() ? r.path.c_str() : r.error.c_str());
        } else {
            const std::string spread = gflops_text(r.gflops_min) + ".." + gflops_text(r.gflops_max);
            std::printf("  %-13s %-5s %10s %9s %17s  %-7s %s\n", r.backend.c_str(), precision.c_str(),
                        core::format_duration(r.time.median_ns).c_str(), gflops_text(r.gflops).c_str(),
                        spread.c_str(), r.check_pass ? "match" : "OUTSIDE", r.path.c_str());
        }
    }
    return failures;
}

// The FP32 ladder: one row per rung, with its fraction of the measured FMA peak. Returns failed checks.
int print_ladder(const BenchOptions& o, bool& first) {
    const int64_t n = o.quick ? 64 : 512;
    core::MeasureConfig config;
    // The naive rung takes a good part of a second at 512^3: fewer samples than the other tables.
    config.warmup = 1;
    config.min_samples = o.quick ? 3 : 5;
    config.max_samples = o.quick ? 3 : 40;
    config.time_budget_ns = o.quick ? 0 : 400'000'000;
    bench_progress("bench: the FP32 ladder at %lld^3...\n", static_cast<long long>(n));
    const core::GemmLadder ladder = core::measure_gemm_ladder(n, config);
    int failures = 0;
    if (o.json) {
        json_record(first, "\"op\": \"fma-peak\", \"isa\": " + json_string(ladder.isa) +
                               ", \"one_core_gflops\": " + json_number(ladder.peak.one_core_gflops) +
                               ", \"all_cores_gflops\": " + json_number(ladder.peak.all_cores_gflops) +
                               ", \"threads\": " + std::to_string(ladder.peak.threads));
    } else {
        std::printf("\nFP32 matrix product rung by rung, %lld x %lld x %lld, %s; FMA peak measured now: %s GFLOP/s on "
                    "1 core, %s on %d\n",
                    static_cast<long long>(n), static_cast<long long>(n), static_cast<long long>(n), ladder.isa.c_str(),
                    gflops_text(ladder.peak.one_core_gflops).c_str(), gflops_text(ladder.peak.all_cores_gflops).c_str(),
                    ladder.peak.threads);
        std::printf("  %-24s %5s %10s %9s %17s %7s  %s\n", "rung", "cores", "median", "GFLOP/s", "GFLOP/s min..max",
                    "% peak", "check");
    }
    for (const core::GemmRungRow& r : ladder.rows) {
        const core::GemmSpeedRow& s = r.speed;
        if (!s.error.empty()) {
            std::fprintf(stderr, "gpulab: FP32 rung '%s' at %lld^3: %s\n", s.path.c_str(), static_cast<long long>(n),
                         s.error.c_str());
            ++failures;
        }
        if (s.ran && !s.check_pass) ++failures;
        if (o.json) {
            json_record(first, "\"op\": \"gemm-rung\", \"rung\": " + json_string(cpu::gemm_rung_id(r.rung)) +
                                   ", \"name\": " + json_string(cpu::gemm_rung_name(r.rung)) +
                                   ", \"idea\": " + json_string(cpu::gemm_rung_idea(r.rung)) +
                                   ", \"size\": " + std::to_string(n) + ", \"threads\": " + std::to_string(r.threads) +
                                   ", \"ran\": " + (s.ran ? "true" : "false") +
                                   ", \"median_ns\": " + std::to_string(s.time.median_ns) +
                                   ", \"samples\": " + std::to_string(s.time.samples) +
                                   ", \"gflops\": " + json_number(s.gflops) +
                                   ", \"gflops_min\": " + json_number(s.gflops_min) +
                                   ", \"gflops_max\": " + json_number(s.gflops_max) +
                                   ", \"fraction_of_peak\": " + json_number(r.fraction_of_peak) +
                                   ", \"matches_reference\": " + (s.check_pass ? "true" : "false"));
        } else if (!s.ran) {
            std::printf("  %-24s not run: %s\n", s.path.c_str(), s.error.c_str());
        } else {
            const std::string spread = gflops_text(s.gflops_min) + ".." + gflops_text(s.gflops_max);
            std::printf("  %-24s %5d %10s %9s %17s %6.0f%%  %s\n", s.path.c_str(), r.threads,
                        core::format_duration(s.time.median_ns).c_str(), gflops_text(s.gflops).c_str(), spread.c_str(),
                        100.0 * r.fraction_of_peak, s.check_pass ? "match" : "OUTSIDE");
        }
    }
    return failures;
}

}  // namespace

int bench_tensor(const BenchOptions& o, bool& first) {
    core::MeasureConfig config;
    config.warmup = o.quick ? 1 : 2;
    config.min_samples = o.quick ? 3 : 10;
    config.max_samples = o.quick ? 3 : 40;
    config.time_budget_ns = o.quick ? 0 : 400'000'000;
    int failures = 0;
    if (!o.json) {
        std::printf("\nMatrix product C = A x B on the CPU and with cuBLAS on the GPU (gpu-cublas: CUDA events around "
                    "cublasGemmEx alone), FP32 sums; BF16 and FP16 rows round A and B on the host (nearest even), TF32 "
                    "rows inside cuBLAS; GFLOP/s = 2 n^3 / median\n");
    }
    for (const SizePlan& plan : size_plan(o)) {
        const int64_t n = plan.n;
        bench_progress("bench: matrix products at %lld^3...\n", static_cast<long long>(n));
        core::GemmSpeedRun run = core::measure_gemm_speed(n, config, plan.rows);
        // Past the caches only our FP32 and oneDNN's are timed, on the CPU (the GPU rows: --gemm-size).
        const bool every_row = plan.rows == core::GemmRows::All;
        // Then cuBLAS on the GPU in FP32, TF32, FP16 and BF16: four rows, "not run: no GPU here: ..."
        // without one. Printed like the CPU rows; a GPU row that ran and misses its bound fails too.
        if (every_row)
            for (core::GemmSpeedRow& r : gpu::measure_cublas_gemm(n, n, n, config)) run.rows.push_back(std::move(r));
        // And our own tensor-core kernel (mma.sync), FP16 and BF16: the "30 % of cuBLAS FP16" is read here.
        if (every_row)
            for (core::GemmSpeedRow& r : gpu::measure_mma_gemm_rows(n, n, n, config)) run.rows.push_back(std::move(r));
        failures += print_rows(o, first, run);
        const double ours = run.ours_bf16_over_fp32(), onednn = run.onednn_bf16_over_fp32(),
                     versus = run.ours_over_onednn_bf16(), fp32 = run.ours_over_onednn_fp32();
        // The GPU target: our tensor-core kernel at >= 30 % of cuBLAS FP16 (0 where either did not run).
        const double mma_over_cublas = core::gflops_ratio(run.row(gpu::kMmaGemmBackend, core::FpFormat::Fp16),
                                                          run.row(gpu::kCublasGemmBackend, core::FpFormat::Fp16));
        if (o.json) {
            json_record(first, "\"op\": \"gemm-ratios\", \"size\": " + std::to_string(n) +
                                   ", \"ours_fp32_over_onednn_fp32\": " + ratio_json(fp32) +
                                   ", \"ours_bf16_over_fp32\": " + ratio_json(ours) +
                                   ", \"onednn_bf16_over_fp32\": " + ratio_json(onednn) +
                                   ", \"ours_bf16_over_onednn_bf16\": " + ratio_json(versus) +
                                   ", \"mma_sync_over_cublas_fp16\": " + ratio_json(mma_over_cublas));
        } else {
            auto text = [](double r) { return r > 0 ? core::format_ratio(r) : std::string("-"); };
            std::printf("  our FP32 / oneDNN's FP32: %s\n", text(fp32).c_str());
            if (every_row)
                std::printf("  BF16 / FP32: cpu-parallel %s, cpu-onednn %s; our BF16 / oneDNN's BF16: %s\n",
                            text(ours).c_str(), text(onednn).c_str(), text(versus).c_str());
            if (mma_over_cublas > 0)
                std::printf("  our mma.sync kernel / cuBLAS, FP16 inputs: %s\n", text(mma_over_cublas).c_str());
        }
    }
    if (!o.gemm_fp32_only) failures += print_ladder(o, first);
    return failures;
}

}  // namespace gpulab::app
