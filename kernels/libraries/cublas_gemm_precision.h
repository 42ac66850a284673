// The GPU rows of the tensor lesson's speed step and `gpulab bench --suite tensor` (issue 29 part 4,
// GPU side): one m x n x k product C = A x B through cublasGemmEx in four precisions, FP32 sums in
// every row:
//
//   FP32   A, B, C CUDA_R_32F, CUBLAS_COMPUTE_32F             (no tensor cores)
//   TF32   A, B, C CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32   (tensor cores round A and B to TF32)
//   FP16   A, B CUDA_R_16F (rounded on the host), C CUDA_R_32F, CUBLAS_COMPUTE_32F
//   BF16   A, B CUDA_R_16BF (rounded on the host), C CUDA_R_32F, CUBLAS_COMPUTE_32F
//
// Rows are core::GemmSpeedRow (backend "gpu-cublas") so the CPU rows' printing and bars show them
// unchanged. Timing: CUDA events around each cublasGemmEx alone, warm-up, then samples as
// MeasureConfig says; median and min .. max. Each result is checked at 64 sampled outputs against the
// FP64 product of the unrounded inputs, within core::matmul_error_bound for that input format (see
// cublas_gemm_rows.cpp for the margin the GPU gets).
//
// Without a usable GPU every row has ran == false and a path starting "no GPU here: " plus the
// reason (CUDA not compiled in, no device, cuBLAS missing). Implemented in cublas_gemm_precision.cu
// (CUDA build with cuBLAS), else cublas_gemm_absent.cpp; the shape check, the not-run rows and the
// accuracy check are plain C++ (cublas_gemm_rows.cpp) in every build. Never throws.
//
// Verified on the host by tests/test_cublas_gemm.cpp; not yet run on a GPU (docs/gpu-verification.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "measure/stats.h"
#include "ops/fp_formats.h"
#include "workloads/tensor_speed.h"

namespace gpulab::gpu {

inline constexpr const char* kCublasGemmBackend = "gpu-cublas";
// The four rows, in the order they are listed.
inline constexpr core::FpFormat kCublasGemmFormats[] = {core::FpFormat::Fp32, core::FpFormat::Tf32,
                                                        core::FpFormat::Fp16, core::FpFormat::Bf16};

// "" when m x n x k can be measured, else a sentence: each side 1 .. 16384 (so that every index and
// leading dimension fits cuBLAS's int and the three matrices stay below 4 GiB).
std::string cublas_gemm_problem(int64_t m, int64_t n, int64_t k);

// The four rows, measured on the GPU, or not run with the reason. A bad shape gives four rows
// not run with cublas_gemm_problem's sentence.
std::vector<core::GemmSpeedRow> measure_cublas_gemm(int64_t m, int64_t n, int64_t k, const core::MeasureConfig& config);

// --- plain C++ helpers (cublas_gemm_rows.cpp), shared by both builds and the tests ---

// Four rows with ran == false and `path` = "no GPU here: " + why (or `why` itself when it already
// says so, or for a shape refusal when `shape_problem` is true).
// "no GPU here: <why>", unless `why` already starts so: the reason GPU speed rows share when the
// device is the problem, so the views can say it once.
std::string no_gpu_reason(const std::string& why);
std::vector<core::GemmSpeedRow> cublas_gemm_not_run(const std::string& why, bool shape_problem = false);

// The largest |C - exact| / bound over 64 sampled outputs (corners and pseudo-random ones) of the
// row-major m x n result `c` of a (m x k) times b (k x n), `a` and `b` unrounded; the bound is
// matmul_error_bound({inputs, FP32}, k, ...) times kCublasGemmMargin. <= 1 passes.
inline constexpr double kCublasGemmMargin = 2.0;
double cublas_gemm_worst_ratio(core::FpFormat inputs, const std::vector<float>& a, const std::vector<float>& b,
                               const std::vector<float>& c, int64_t m, int64_t n, int64_t k);

// GFLOP/s, median and spread from the samples (ns), as the CPU rows compute them.
void cublas_gemm_fill_times(core::GemmSpeedRow& row, std::vector<int64_t> samples_ns, int64_t m, int64_t n, int64_t k);

}  // namespace gpulab::gpu
