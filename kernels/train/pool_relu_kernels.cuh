// ReLU and 2x2 max pooling for training, forward and backward, as CUDA kernels. One source, two
// compilers (cuda_device_env.cuh for nvcc, sim/sim_device_env.h for the SIMT simulator); launch
// configurations from train_launch.h (elementwise_launch over the elements each thread owns).
//
// All are one thread per output element, grid-stride loops, consecutive threads on consecutive
// floats (coalesced). Each thread writes only its own element, so there are no atomics and no
// separate zeroing pass:
//   relu_forward      y = max(x, 0)
//   relu_backward     dx = dy where the forward OUTPUT y > 0, else 0 (cpu-scalar's convention)
//   maxpool_forward   thread per pooled output: the max of its 2x2 window, and which of the four
//                     won (a byte per output: the first maximum in row-major order, the rule of
//                     cpu_layers.h's pool_window_argmax, so ties route identically)
//   maxpool_backward  thread per INPUT element (a gather, where cpu-scalar scatters): it receives
//                     its window's upstream gradient when the forward pass recorded it as the
//                     winner, else 0. Rows and columns past the last whole window (an odd H or W)
//                     get 0: they were dropped. (It used to recompute the window's argmax from the
//                     four inputs: four loads per element instead of one byte; issue 30.)
// The pooling kernels are templates over their index type (uint32_t where every index fits, else
// int64_t: train_launch.h's narrow_index); ReLU's flat loops divide nothing and stay 64-bit.
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

// Where in its 2x2 window the first maximum lies, row-major: 0 (top left), 1, 2, 3 (bottom
// right). `at` points at the window's top-left element of a plane of width w. Strict > keeps the
// first of equal values: the rule of cpu_layers.h's pool_window_argmax, so ties route identically.
template <class I>
__device__ inline unsigned window_winner(GlobalPtr<const float> at, I w, float& top) {
    const float v[4] = {at[0], at[1], at[w], at[w + 1]};
    unsigned best = 0;
    top = v[0];
    for (unsigned m = 1; m < 4; ++m)
        if (v[m] > top) {
            top = v[m];
            best = m;
        }
    return best;
}

// planes = N * C of h x w each; y and argmax are planes x (h / 2) x (w / 2). argmax keeps, per
// output, which of its window's four inputs won (window_winner), one byte, so the backward
// pass reads a byte per output instead of recomputing each window from the four inputs (issue 30).
// I: the index type the launch chose (uint32_t or int64_t, train_launch.h's narrow_index).
template <class I>
static __global__ void maxpool_forward_kernel(GlobalPtr<const float> x, GlobalPtr<float> y, GlobalPtr<uint8_t> argmax,
                                              int64_t planes, int64_t height, int64_t width) {
    const I h = static_cast<I>(height), w = static_cast<I>(width);
    const I oh = h / 2, ow = w / 2;
    const I total = static_cast<I>(planes) * oh * ow;
    const I stride = static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
    for (I o = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x); o < total;
         o += stride) {
        const I j = o % ow;
        const I rest = o / ow;
        const I i = rest % oh;
        const I pl = rest / oh;
        float top = 0.0f;
        argmax[o] = static_cast<uint8_t>(window_winner(x + (pl * h + 2 * i) * w + 2 * j, w, top));
        y[o] = top;
    }
}

// dx is planes x h x w: every element written (its window's gradient or 0). A thread per INPUT
// element (a gather: no two threads write one address): it receives its window's upstream
// gradient when the forward pass recorded it as the window's winner, else 0. Rows and columns past
// the last whole window (an odd H or W) get 0: they were dropped.
template <class I>
static __global__ void maxpool_backward_kernel(GlobalPtr<const uint8_t> argmax, GlobalPtr<const float> dy,
                                               GlobalPtr<float> dx, int64_t planes, int64_t height, int64_t width) {
    const I h = static_cast<I>(height), w = static_cast<I>(width);
    const I oh = h / 2, ow = w / 2;
    const I total = static_cast<I>(planes) * h * w;
    const I stride = static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
    for (I e = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x); e < total;
         e += stride) {
        const I col = e % w;
        const I rest = e / w;
        const I row = rest % h;
        const I pl = rest / h;
        const I i = row / 2, j = col / 2;
        float g = 0.0f;
        if (i < oh && j < ow) {
            const I o = (pl * oh + i) * ow + j;
            const unsigned mine = static_cast<unsigned>(row % 2) * 2 + static_cast<unsigned>(col % 2);
            if (static_cast<unsigned>(argmax[o]) == mine) g = dy[o];
        }
        dx[e] = g;
    }
}

}  // namespace gpulab::kern
