// cpu-parallel's im2col + matrix-product convolution (see cpu_conv2d_gemm.cpp for the scheme): the
// convolution lesson's path for CNN layers on some shapes (cpu_conv2d_simd.cpp says which) and
// training's convolution forward (core/train/cpu_parallel_layers.cpp).
#pragma once

#include <cstdint>

#include "ops/conv2d.h"
#include "backends/simd/simd_math.h"

namespace gpulab::cpu {

// input N,C,H,W; filters K,C,R,S; output N,K,P,Q; any valid shape (padding, stride). `bias` (K
// floats) is added when not null. `isa` must be usable on this CPU. Uses the shared pool.
void conv2d_gemm(SimdIsa isa, const core::Conv2dDesc& d, const float* input, const float* filters, const float* bias,
                 float* output);

}  // namespace gpulab::cpu
