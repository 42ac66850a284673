// The elementwise activation kernels' launcher: out[i] = f(in[i]) for i in [0, n) on one stream.
// See activation.cu for the thread-to-data mapping; tests/test_gpu_backends.cpp verifies it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/op_desc.h"

namespace gpulab::cuda {

// Enqueues the kernel on `stream` and returns without waiting. n may exceed 2^31 (64-bit indices).
// d_in and d_out may be any float-aligned device pointers, equal (in place) or disjoint; n == 0
// launches nothing. Throws CudaError when the launch fails.
void launch_activation(const core::OpDesc& op, const float* d_in, float* d_out, int64_t n, cudaStream_t stream);

}  // namespace gpulab::cuda
