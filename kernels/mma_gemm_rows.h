// Our tensor-core kernel (mma_kernels.cuh, the tiled one: 64 x 64 blocks through shared memory, one
// mma.sync.m16n8k16 per 16 x 8 x 16 step) as two rows of
// the tensor lesson's speed table and of `gpulab bench --suite tensor`, beside cuBLAS: FP16 and BF16
// inputs, FP32 sums, backend "cuda-kernel", instruction "mma.sync". Each sample is one
// gpu::run_mma_gemm, timed by CUDA events around the kernel alone (the operands are packed and
// copied outside the events, as the cuBLAS rows' are); checked at 64 outputs against the exact sum
// of the rounded inputs within twice the FP32 sum's bound (the margin the cuBLAS rows use: the
// tensor core's inner rounding is not documented). Without a GPU, or below compute capability 8.0,
// both rows say why, as one reason. Plain C++: built in every build (gpu::run_mma_gemm answers
// "CUDA not compiled in" in a CPU-only one). Verified by tests/test_tensor_kernel.cpp (the rows
// without a GPU; their values where one exists).
#pragma once

#include <cstdint>
#include <vector>

#include "measure/stats.h"
#include "workloads/tensor_speed.h"

namespace gpulab::gpu {

inline constexpr const char* kMmaGemmBackend = "cuda-kernel";
inline constexpr const char* kMmaGemmInstruction = "mma.sync";

// The two rows (FP16, then BF16) at m x n x k, measured as MeasureConfig says, or not run with the reason.
std::vector<core::GemmSpeedRow> measure_mma_gemm_rows(int64_t m, int64_t n, int64_t k, const core::MeasureConfig& config);

}  // namespace gpulab::gpu
