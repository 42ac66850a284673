// The convolution kernels' CUDA launcher. The kernels (naive and tiled, their thread-to-data
// mapping, the picture of the shared-memory tile and its bank-conflict arithmetic) are in
// conv2d_kernels.cuh, which the SIMT simulator compiles too; shape checks and launch
// configurations are in conv2d_launch.h/.cpp, which the simulator calls as well. Every launch is
// followed by GPULAB_CUDA_CHECK_LAUNCH.
//
// Verified by tests/test_gpu_conv2d.cpp (cuda-kernel on a GPU; the same test body on cuda-sim
// everywhere).
#include "conv2d.cuh"

#include <string>

#include "cuda/cuda_check.cuh"
#include "cuda/cuda_device_env.cuh"

#include "conv2d_kernels.cuh"

namespace gpulab::cuda {

void launch_conv2d(Conv2dKernel which, const core::Conv2dDesc& d, const float* d_input, const float* d_filters,
                   float* d_output, cudaStream_t stream) {
    const std::string problem = conv2d_kernel_problem(d);
    if (!problem.empty()) throw CudaError("launch_conv2d: " + problem);
    if (d_input == nullptr || d_filters == nullptr || d_output == nullptr) {
        throw CudaError("launch_conv2d: null device pointer");
    }
    if (which == Conv2dKernel::Tiled && d.stride > kConv2dMaxTiledStride) {
        throw CudaError("launch_conv2d: the tiled kernel takes strides up to " + std::to_string(kConv2dMaxTiledStride) +
                        ", got " + std::to_string(d.stride));
    }
    const kern::ConvShape s = kern::conv2d_shape(d);
    const kern::LaunchShape l = kern::conv2d_launch(which, s);
    const dim3 grid(l.grid.x, l.grid.y, l.grid.z);
    const dim3 block(l.block.x, l.block.y, l.block.z);
    if (which == Conv2dKernel::Naive) {
        kern::conv2d_naive_kernel<<<grid, block, l.shared_bytes, stream>>>(d_input, d_filters, d_output, s,
                                                                          d.output_elements());
    } else {
        kern::conv2d_tiled_kernel<<<grid, block, l.shared_bytes, stream>>>(d_input, d_filters, d_output, s);
    }
    GPULAB_CUDA_CHECK_LAUNCH();
}

cudaError_t conv2d_kernel_image_check(cudaFuncAttributes& attr) {
    return cudaFuncGetAttributes(&attr, kern::conv2d_tiled_kernel);
}

int conv2d_tiled_blocks_per_sm(int kernel, int stride) {
    // The block and shared memory of a launch of this filter size and stride, from the same function
    // the launcher and the simulator use (the output size does not change either).
    kern::ConvShape s{};
    s.kernel = kernel;
    s.stride = stride;
    s.out_h = s.out_w = kern::kConv2dTile;
    s.planes = 1;
    s.tile = kern::conv2d_tile_side(kernel, stride);
    s.pitch = kern::conv2d_tile_pitch(s.tile);
    const kern::LaunchShape l = kern::conv2d_launch(kern::Conv2dKernel::Tiled, s);
    int per_sm = 0;
    GPULAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, kern::conv2d_tiled_kernel, static_cast<int>(l.block.x * l.block.y), l.shared_bytes));
    return per_sm;
}

}  // namespace gpulab::cuda
