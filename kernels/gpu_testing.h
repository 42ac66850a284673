// A test hook into the cuda-kernel launcher: runs one activation with the input and output placed
// `in_offset` / `out_offset` floats past a 256-byte-aligned device allocation, so the tests reach
// the kernel's scalar head, float4 body, tail and the all-scalar path for pointers that no head
// can align together. (Backend::run always uses fresh cudaMalloc buffers, which are aligned.)
//
// Plain C++ like gpu_backends.h; implemented in cuda_kernel_backend.cu and, for builds without
// CUDA, in gpu_absent.cpp. Used only by tests/test_gpu_backends.cpp.
#pragma once

#include "backends/backend.h"

namespace gpulab::gpu {

// Offsets 0..64 floats. Pageable copies, no timing. Never throws.
core::RunResult run_activation_at_offsets(const core::OpDesc& op, const core::Tensor& in, core::Tensor& out,
                                          int in_offset, int out_offset);

}  // namespace gpulab::gpu
