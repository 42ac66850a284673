// The convolution kernels' CUDA launcher. The shape checks the GPU backends share and the launch
// configurations are plain C++ in conv2d_launch.h (the SIMT simulator uses them too); the kernels,
// their thread-to-data mapping and the picture of the shared-memory tile are in conv2d_kernels.cuh;
// tests/test_gpu_conv2d.cpp verifies both against cpu-scalar.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "ops/conv2d.h"
#include "conv2d_launch.h"

namespace gpulab::cuda {

using kern::Conv2dKernel;
using kern::conv2d_kernel_for;
using kern::conv2d_kernel_label;
using kern::conv2d_kernel_problem;
using kern::conv2d_shape_problem;
using kern::kConv2dMaxKernel;
using kern::kConv2dMaxStride;
using kern::kConv2dMaxTiledStride;

// Enqueues output = conv(input, filters) on `stream` and returns without waiting. Layouts:
// input N,C,H,W; filters K,C,R,S; output N,K,P,Q, all packed floats on the device. Throws
// CudaError for a shape conv2d_kernel_problem refuses, Tiled past kConv2dMaxTiledStride, or a
// failed launch.
void launch_conv2d(Conv2dKernel which, const core::Conv2dDesc& d, const float* d_input, const float* d_filters,
                   float* d_output, cudaStream_t stream);

// cudaFuncGetAttributes of the tiled kernel on the current device: fails (e.g.
// cudaErrorNoKernelImageForDevice or cudaErrorInvalidDeviceFunction) when this build's fatbin has no
// code the device can run, which probe() turns into the reason no GPU backend is usable.
cudaError_t conv2d_kernel_image_check(cudaFuncAttributes& attr);

// cudaOccupancyMaxActiveBlocksPerMultiprocessor of the tiled kernel with the block and dynamic shared
// memory launch_conv2d would use for a kernel x kernel filter at `stride`. Throws CudaError.
int conv2d_tiled_blocks_per_sm(int kernel, int stride);

}  // namespace gpulab::cuda
