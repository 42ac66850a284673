// The SGD-with-momentum update as a CUDA kernel, in the form core/train/engine.h states (PyTorch's
// and Keras'): v = momentum * v - rate * g; w += v. One source, two compilers (cuda_device_env.cuh
// for nvcc, sim/sim_device_env.h for the SIMT simulator); launch configuration: train_launch.h's
// elementwise_launch, which both paths call.
//
// Thread mapping: element i of the flat parameter vector to thread i of a grid-stride loop (64-bit
// indices), so consecutive threads touch consecutive floats of w, v and g: every warp request is
// 128 contiguous bytes, fully coalesced. Each element is independent: no shared memory, no
// barriers, no atomics. nvcc may fuse `momentum * v - rate * g` into one FMA, which rounds once
// where cpu-scalar rounds twice: results differ by about one ulp of v (the tests allow 1e-6).
//
// Verified by tests/test_gpu_train.cpp against cpu-scalar's sgd_momentum, on the simulator and on
// a GPU where there is one.
#pragma once

#include <cstdint>

namespace gpulab::kern {

// The kernels are `static` (internal linkage): every translation unit that includes this header
// (the simulator's layer table and engine, the cuda-kernel and cudnn engines) compiles its own
// copy, so several may include it without clashing at link time.

static __global__ void sgd_momentum_kernel(GlobalPtr<float> w, GlobalPtr<float> v, GlobalPtr<const float> g, int64_t count,
                                    float rate, float momentum) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
        const float vi = momentum * v[i] - rate * g[i];
        v[i] = vi;
        w[i] = w[i] + vi;
    }
}

}  // namespace gpulab::kern
