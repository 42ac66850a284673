// The real CUDA kernels (activation_kernel.cuh, conv2d_kernels.cuh) run on the SIMT simulator, with
// the launch configuration their CUDA launchers use. Plain C++; what cuda-sim and the tests call.
// Implemented in sim_kernels.cpp, the one file that compiles the kernel headers with the host
// compiler. Never throws: a refused launch or a failed check is Result::error.
#pragma once

#include <cstdint>

#include "ops/conv2d.h"
#include "conv2d/conv2d_launch.h"
#include "ops/op_desc.h"
#include "sim_runtime.h"

namespace gpulab::sim {

// Blocks of `threads_per_block` resident at once on the modelled GPU (kModelSms SMs of
// kModelThreadsPerSm threads), what the CUDA launcher asks the occupancy calculator on a device.
int model_resident_blocks(int threads_per_block);

// activation_kernel over [0, n): `in` and `out` point into simulator buffers (any float offset).
Result run_activation(const core::OpDesc& op, GlobalPtr<const float> in, GlobalPtr<float> out, int64_t n,
                      const Options& options = {});

// The naive or tiled convolution kernel for a shape kern::conv2d_kernel_problem accepts; `s` is
// kern::conv2d_shape(d), or a variant of it (the tests change the tile pitch).
Result run_conv2d(kern::Conv2dKernel which, const kern::ConvShape& s, GlobalPtr<const float> in,
                  GlobalPtr<const float> filters, GlobalPtr<float> out, const Options& options = {});

// Why cuda-sim does not run the SIMD-vs-MIMD lesson's divergence kernel (kernels/probes/divergence.cu):
// one sentence, from the simulator's own refusal of a stand-in kernel that makes the same two reads
// (the warp's active mask, the SM's cycle counter), plus where the real kernel does them.
std::string divergence_kernel_refusal();

}  // namespace gpulab::sim
