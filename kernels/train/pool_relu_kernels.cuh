// ReLU and 2x2 max pooling for training, forward and backward, as CUDA kernels. One source, two
// compilers (cuda_device_env.cuh for nvcc, sim/sim_device_env.h for the SIMT simulator); launch
// configurations from train_launch.h (elementwise_launch over the elements each thread owns).
//
// All are one thread per output element, grid-stride loops, 64-bit indices, consecutive threads on
// consecutive floats (coalesced). Each thread writes only its own element, so there are no atomics
// and no separate zeroing pass:
//   relu_forward      y = max(x, 0)
//   relu_backward     dx = dy where the forward OUTPUT y > 0, else 0 (cpu-scalar's convention)
//   maxpool_forward   thread per pooled output: the max of its 2x2 window
//   maxpool_backward  thread per INPUT element (a gather, where cpu-scalar scatters): it receives
//                     its window's upstream gradient when it is that window's first maximum in
//                     row-major order (pool_argmax, the same rule as cpu_layers.h's
//                     pool_window_argmax, so ties route identically), else 0. Rows and columns
//                     past the last whole window (an odd H or W) get 0: they were dropped.
//
// Verified by tests/test_gpu_train.cpp against cpu-scalar's layer functions, exactly (no
// arithmetic besides comparisons), on the simulator and on a GPU where there is one.
#pragma once

#include <cstdint>

namespace gpulab::kern {

// The kernels are `static` (internal linkage): every translation unit that includes this header
// (the simulator's layer table and engine, the cuda-kernel and cudnn engines) compiles its own
// copy, so several may include it without clashing at link time.

static __global__ void relu_forward_kernel(GlobalPtr<const float> x, GlobalPtr<float> y, int64_t count) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
        const float v = x[i];
        y[i] = v > 0.0f ? v : 0.0f;
    }
}

static __global__ void relu_backward_kernel(GlobalPtr<const float> y, GlobalPtr<const float> dy, GlobalPtr<float> dx,
                                     int64_t count) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
        dx[i] = y[i] > 0.0f ? static_cast<float>(dy[i]) : 0.0f;
}

// Offset within a plane of width w of the first maximum, row-major, of the 2x2 window at pooled
// position (i, j).
__device__ inline int64_t pool_argmax(GlobalPtr<const float> plane, int64_t w, int64_t i, int64_t j) {
    int64_t best = (2 * i) * w + 2 * j;
    float top = plane[best];
    for (int64_t a = 0; a < 2; ++a)
        for (int64_t b = 0; b < 2; ++b) {
            const int64_t at = (2 * i + a) * w + 2 * j + b;
            const float v = plane[at];
            if (v > top) {
                top = v;
                best = at;
            }
        }
    return best;
}

// planes = N * C of h x w each; y is planes x (h / 2) x (w / 2).
static __global__ void maxpool_forward_kernel(GlobalPtr<const float> x, GlobalPtr<float> y, int64_t planes, int64_t h,
                                       int64_t w) {
    const int64_t oh = h / 2, ow = w / 2;
    const int64_t total = planes * oh * ow;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < total; o += stride) {
        const int64_t j = o % ow;
        const int64_t i = (o / ow) % oh;
        const GlobalPtr<const float> plane = x + (o / (ow * oh)) * h * w;
        y[o] = plane[pool_argmax(plane, w, i, j)];
    }
}

// dx is planes x h x w: every element written (its window's gradient or 0).
static __global__ void maxpool_backward_kernel(GlobalPtr<const float> x, GlobalPtr<const float> dy, GlobalPtr<float> dx,
                                        int64_t planes, int64_t h, int64_t w) {
    const int64_t oh = h / 2, ow = w / 2;
    const int64_t total = planes * h * w;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
        const int64_t col = e % w;
        const int64_t row = (e / w) % h;
        const int64_t pl = e / (w * h);
        const int64_t i = row / 2, j = col / 2;
        float g = 0.0f;
        if (i < oh && j < ow) {
            const GlobalPtr<const float> plane = x + pl * h * w;
            if (pool_argmax(plane, w, i, j) == row * w + col) g = dy[(pl * oh + i) * ow + j];
        }
        dx[e] = g;
    }
}

}  // namespace gpulab::kern
