// Internal wiring between the files of kernels/: plain C++ (no CUDA or cuDNN types), so that
// cudnn_missing.cpp, compiled by the host compiler, can provide the same functions as
// cudnn_backend.cu and CMake picks one of the two. Not included outside kernels/.
#pragma once

#include <memory>

#include "backends/backend.h"
#include "gpu_backends.h"

namespace gpulab::gpu::detail {

// Hand-written kernels (cuda_kernel_backend.cu): cuda-kernel, and cuda-naive for the conv lesson.
std::unique_ptr<core::Backend> make_cuda_kernel_backend();
std::unique_ptr<core::Backend> make_cuda_naive_backend();

// cudnnActivationForward and cudnnConvolutionForward (cudnn_backend.cu), or the "not found at
// build time" backend.
std::unique_ptr<core::Backend> make_cudnn_backend();

// Fills the cudnn_* fields of the probe. Called once from probe(), after the CUDA fields are set
// (it reads device_ok and reason). Never throws.
void probe_cudnn(GpuProbe& p);

}  // namespace gpulab::gpu::detail
