// `gpulab bench --suite tensor` (issue 29 part 4): matrix-product GFLOP/s per precision and backend on
// the CPU at 256^3, 512^3 and 1024^3 (`--quick`: 128^3, 3 samples; `--gemm-size N` sets n instead):
// cpu-parallel FP32 (the training GEMM on all cores), our BF16 kernel (VDPBF16PS), oneDNN's matmul in
// FP32 and in BF16. Each row names the path that ran, native or emulated, or why it did not run; median
// and min .. max of the samples;
// BF16 / FP32 of the same backend, and ours / oneDNN's BF16, the ratios TARGETS.md sets (">= 1.5x" at
// 1024^3 where the CPU has AVX512_BF16; ">= 0.8x"). The numbers come from core/workloads/tensor_speed,
// which the tensor lesson can show; results in docs/benchmarks.md. Then the four gpu-cublas rows
// (kernels/libraries/cublas_gemm_precision.h): cuBLAS in FP32, TF32, FP16, BF16, or why not run.
#include "cli_bench_tensor.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "json_out.h"
#include "libraries/cublas_gemm_precision.h"
#include "mma_gemm_rows.h"
#include "measure/format.h"
#include "workloads/tensor_speed.h"

namespace gpulab::app {

namespace {

std::string gflops_text(double v) { return core::format_fixed(v, v >= 100 ? 0 : 1); }

std::string ratio_json(double r) { return r > 0 ? json_number(r) : "null"; }

}  // namespace

int bench_tensor(const BenchOptions& o, bool& first) {
    std::vector<int64_t> sizes = o.quick ? std::vector<int64_t>{128} : std::vector<int64_t>{256, 512, 1024};
    if (!o.gemm_sizes.empty()) sizes.assign(o.gemm_sizes.begin(), o.gemm_sizes.end());  // --gemm-size
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
    for (const int64_t n : sizes) {
        bench_progress("bench: matrix products at %lld^3...\n", static_cast<long long>(n));
        core::GemmSpeedRun run = core::measure_gemm_speed(n, config);
        // Then cuBLAS on the GPU in FP32, TF32, FP16 and BF16: four rows, "not run: no GPU here: ..."
        // without one. Printed like the CPU rows; a GPU row that ran and misses its bound fails too.
        for (core::GemmSpeedRow& r : gpu::measure_cublas_gemm(n, n, n, config)) run.rows.push_back(std::move(r));
        // And our own tensor-core kernel (mma.sync), FP16 and BF16: the "30 % of cuBLAS FP16" is read here.
        for (core::GemmSpeedRow& r : gpu::measure_mma_gemm_rows(n, n, n, config)) run.rows.push_back(std::move(r));
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
        const double ours = run.ours_bf16_over_fp32(), onednn = run.onednn_bf16_over_fp32(),
                     versus = run.ours_over_onednn_bf16();
        // The GPU target: our tensor-core kernel at >= 30 % of cuBLAS FP16 (0 where either did not run).
        const double mma_over_cublas = core::gflops_ratio(run.row(gpu::kMmaGemmBackend, core::FpFormat::Fp16),
                                                          run.row(gpu::kCublasGemmBackend, core::FpFormat::Fp16));
        if (o.json) {
            json_record(first, "\"op\": \"gemm-ratios\", \"size\": " + std::to_string(n) +
                                   ", \"ours_bf16_over_fp32\": " + ratio_json(ours) +
                                   ", \"onednn_bf16_over_fp32\": " + ratio_json(onednn) +
                                   ", \"ours_bf16_over_onednn_bf16\": " + ratio_json(versus) +
                                   ", \"mma_sync_over_cublas_fp16\": " + ratio_json(mma_over_cublas));
        } else {
            auto text = [](double r) { return r > 0 ? core::format_ratio(r) : std::string("-"); };
            std::printf("  BF16 / FP32: cpu-parallel %s, cpu-onednn %s; our BF16 / oneDNN's BF16: %s\n",
                        text(ours).c_str(), text(onednn).c_str(), text(versus).c_str());
            if (mma_over_cublas > 0)
                std::printf("  our mma.sync kernel / cuBLAS, FP16 inputs: %s\n", text(mma_over_cublas).c_str());
        }
    }
    return failures;
}

}  // namespace gpulab::app
