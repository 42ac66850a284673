// Loss scaling for FP16 mixed-precision training (issue 29 part 5; the policy is
// core/train/loss_scaling.h's LossScaler, which the cudnn engine keeps on the host) as two CUDA
// kernels: multiply a buffer by a factor (the loss gradient by the scale S before the backward
// pass, the weight gradients by 1/S after it), and raise one flag when any value of a buffer is not
// finite (a scaled gradient that overflowed FP16, or FP32, inside a product). One source, two
// compilers, like every kernel header here: included after cuda_device_env.cuh by nvcc, after
// sim/sim_device_env.h by the host compiler for the SIMT simulator. Launch configuration:
// train_launch.h's elementwise_launch, which both paths call.
//
// Thread mapping: element i to thread i of a grid-stride loop (64-bit indices), coalesced as the
// SGD kernel. The flag kernel writes only where it finds a non-finite value, and every writer
// writes the same 1, so concurrent stores need no atomics; the caller clears the flag first.
//
// Numerics: with S a power of two (the policy only halves and doubles it from 2^16), x * S and
// x * (1 / S) are exact unless they leave FP32's range, so scaling changes no bit a product sees
// beyond what FP16's own range does.
//
// Verified by tests/test_gpu_train.cpp: on the SIMT simulator against core's scale_in_place and
// all_finite (every machine), and through the cudnn engine on a GPU where there is one.
#pragma once

#include <cmath>
#include <cstdint>

namespace gpulab::kern {

// The kernels are `static` (internal linkage), as in sgd_kernel.cuh: every translation unit that
// includes this header compiles its own copy.

// x[i] *= factor for i < count.
static __global__ void scale_kernel(GlobalPtr<float> x, int64_t count, float factor) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
        x[i] = x[i] * factor;
}

// *flag = 1 when some g[i] (i < count) is infinite or NaN; *flag untouched otherwise. The test is
// written as !(|g| <= FLT_MAX), which is false for every finite value and true for infinities and
// for NaN (every comparison with NaN is false), with no isfinite overload to pick on either compiler.
static __global__ void nonfinite_flag_kernel(GlobalPtr<const float> g, int64_t count, GlobalPtr<int> flag) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
        if (!(fabsf(g[i]) <= 3.402823466e38f)) flag[0] = 1;
}

}  // namespace gpulab::kern
