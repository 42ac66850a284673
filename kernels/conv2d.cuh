// The convolution kernels' launchers and the shape checks the GPU backends share. The kernels
// themselves, their thread-to-data mapping and the picture of the shared-memory tile are in
// conv2d.cu; tests/test_gpu_conv2d.cpp verifies both against cpu-scalar.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "conv2d.h"

namespace gpulab::cuda {

enum class Conv2dKernel {
    Naive,  // one thread per output element, every tap read from global memory (hd::conv2d_point)
    Tiled,  // 16x16 outputs per block from one shared-memory input tile with its halo
};

// Largest filter side and stride the kernels take (core's validate() allows the same). The tiled
// kernel stops at stride 4: its largest tile is (15 * 4 + 15)^2 floats = 22 KiB of shared memory,
// inside the 48 KiB every device offers without opting in, and past stride 4 neighbouring windows
// share few or no inputs, so a tile would have nothing to reuse. cuda-kernel runs the naive kernel
// there and says so in its implementation string.
constexpr int kConv2dMaxKernel = 15;
constexpr int kConv2dMaxStride = 8;
constexpr int kConv2dMaxTiledStride = 4;

// Empty when `d` describes a convolution at all: core's Conv2dDesc::validate() (what the reference
// accepts), a kernel that fits the padded input, and tensors that fit the int arithmetic of the
// kernels and cuDNN's descriptors. Else one sentence for the user. Host code, shared by
// cuda-kernel, cuda-naive and cudnn.
std::string conv2d_shape_problem(const core::Conv2dDesc& d);

// conv2d_shape_problem plus the limits of our own kernels (kernel side, stride, grid size).
std::string conv2d_kernel_problem(const core::Conv2dDesc& d);

// The one line that names what runs, for the peers table.
const char* conv2d_kernel_label(Conv2dKernel which);

// The kernel cuda-kernel runs for `d`: Tiled up to kConv2dMaxTiledStride, Naive beyond.
Conv2dKernel conv2d_kernel_for(const core::Conv2dDesc& d);

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
