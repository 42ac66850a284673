// The tensor-core GEMM on a GPU, behind plain C++ types: D = A x B with A and B rounded to FP16 or
// BF16 and FP32 accumulation, through the mma.sync kernel of mma_kernels.cuh. Implemented in
// mma_gemm.cu; gpu_absent.cpp answers "CUDA not compiled in". Never throws. Not yet run on a GPU
// (docs/gpu-verification.md).
#pragma once

#include <cstdint>
#include <string>

#include "mma_fragment.h"
#include "mma_launch.h"

namespace gpulab::gpu {

struct MmaGemmRun {
    bool ok = false;
    std::string error;      // no device, compute capability below 8.0, a failed CUDA call
    int64_t kernel_ns = 0;  // CUDA events around the kernel alone
};

// Row-major floats: a (m x k), b (k x n), d (m x n) written. `kernel`: the tiled kernel (64 x 64 blocks
// through shared memory, the faster) unless the warp kernel is asked for (mma_launch.h).
MmaGemmRun run_mma_gemm(kern::MmaInput in, const float* a, const float* b, float* d, int64_t m, int64_t n, int64_t k,
                        kern::MmaKernel kernel = kern::MmaKernel::Tiled);

}  // namespace gpulab::gpu
