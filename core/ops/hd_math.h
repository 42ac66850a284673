// Per-element math shared by the CPU backends and the CUDA kernels.
//
// Every formula here is compiled twice: by the host compiler for cpu-scalar (the reference) and
// by nvcc for the kernels, so the CPU tests (tests/test_activation_math.cpp) cover exactly the
// formula the GPU runs. The vectorised cpu-parallel path re-derives sigmoid/tanh/GELU from a
// polynomial exp and is compared against these within a stated tolerance.
//
// NaN policy: NaN in gives NaN out for every activation (as PyTorch does). ReLU is written as
// `x < 0 ? 0 : x` rather than `max(x, 0)` precisely so that NaN (which compares false) passes through.
#pragma once

#include <math.h>

#if defined(__CUDACC__)
#define GPULAB_HD __host__ __device__ __forceinline__
#else
#define GPULAB_HD inline
#endif

namespace gpulab::hd {

GPULAB_HD float relu(float x) { return x < 0.0f ? 0.0f : x; }

GPULAB_HD float leaky_relu(float x, float alpha) { return x < 0.0f ? alpha * x : x; }

// 1 / (1 + e^-x): e^-x overflows to +inf for x < -88, and 1/inf is the correct limit 0.
GPULAB_HD float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

GPULAB_HD float tanh_act(float x) { return tanhf(x); }

// GELU, tanh approximation (Hendrycks & Gimpel; the form GPT-2 and many kernels use):
//   0.5 x (1 + tanh( sqrt(2/pi) (x + 0.044715 x^3) ))
// Chosen over the erf form because it maps onto the same exp polynomial the SIMD path uses.
constexpr float kGeluSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;
// Below x = -10, tanh(u) rounds to -1 and the formula gives -0 anyway; returning -0 there explicitly
// also makes gelu(-inf) = -0 (the limit) instead of -inf * 0 = NaN.
constexpr float kGeluZeroBelow = -10.0f;
GPULAB_HD float gelu(float x) {
    return x < kGeluZeroBelow ? -0.0f
                              : 0.5f * x * (1.0f + tanhf(kGeluSqrt2OverPi * (x + kGeluCubic * x * x * x)));
}

}  // namespace gpulab::hd
