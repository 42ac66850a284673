// The convolution layer of training as three CUDA kernels: forward, backward-data (the gradient
// the layer passes down) and backward-weights (its filters' gradient), plus the bias gradient,
// which dense layers share. One source, two compilers (cuda_device_env.cuh for nvcc,
// sim/sim_device_env.h for the SIMT simulator); launch configurations from train_launch.h.
//
// The layer (core/train/model.h): "valid" 3x3 (any R) convolution, stride 1, no padding, with bias:
//   y[n][k][p][q] = b[k] + sum over c, r, s of x[n][c][p + r][q + s] * w[k][c][r][s],  P = H - R + 1
//
// Every kernel gives each thread one OUTPUT of its own (a gather) and loops over what that output
// sums, so no two threads write the same address: no atomics, and the result does not depend on
// the order threads run. Grid-stride loops over flat indices in output order (last index fastest),
// so consecutive threads write consecutive floats (coalesced stores). Each kernel is a template over
// its index type I: uint32_t when every index fits (the launch decides, train_launch.h's
// narrow_index), int64_t for tensors past 2^31 elements.
//
//   forward           thread per y element: C*R*R multiply-adds, in cpu-scalar's order (c, r, s).
//   backward-data     thread per dx element (n, c, y, x): the outputs whose window covered it are
//                     p = y - r, q = x - s for taps (r, s) with 0 <= p < P, 0 <= q < Q; sums
//                     dy[n][k][p][q] * w[k][c][r][s] over k, r, s. (cpu-scalar scatters instead:
//                     the same terms, another order, so results differ by rounding.)
//   backward-weights  block per filter tap (k, c, r, s): sums dy[n][k][p][q] * x[n][c][p+r][q+s]
//                     over the batch and every position, a shared-memory tree at the end.
//   bias gradient     block per channel k: db[k] = sum over n and the plane of dy[n][k][...].
//                     Dense layers are planes of size 1.
//
// Sums are in float (cpu-scalar keeps weight and bias gradients in double): the tests state the
// tolerance.
//
// Verified by tests/test_gpu_train.cpp against cpu-scalar's conv_forward, conv_backward_data and
// conv_backward_weights, on the simulator (every machine) and on a GPU where there is one.
#pragma once

#include <cstdint>

namespace gpulab::kern {

// The kernels are `static` (internal linkage): every translation unit that includes this header
// (the simulator's layer table and engine, the cuda-kernel and cudnn engines) compiles its own
// copy, so several may include it without clashing at link time.

// The shapes of one convolution of a batch (the kernels' argument, by value).
struct TrainConvShape {
    int64_t n, c, h, w, k, r;
    int64_t p, q;  // output height and width: h - r + 1, w - r + 1
};

inline TrainConvShape train_conv_shape(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t r) {
    return {n, c, h, w, k, r, h - r + 1, w - r + 1};
}

// The shape in the index type I a launch chose (narrow_index in train_launch.h): uint32_t when
// every index fits, int64_t otherwise. Converted once per thread, so the divisions and products of
// the index arithmetic below are all in I.
template <class I>
struct ConvDims {
    I n, c, h, w, k, r, p, q;
    __device__ explicit ConvDims(const TrainConvShape& s)
        : n(static_cast<I>(s.n)), c(static_cast<I>(s.c)), h(static_cast<I>(s.h)), w(static_cast<I>(s.w)),
          k(static_cast<I>(s.k)), r(static_cast<I>(s.r)), p(static_cast<I>(s.p)), q(static_cast<I>(s.q)) {}
};

// The first flat index of this thread and the grid's stride, in I.
template <class I>
__device__ inline I first_index() {
    return static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
}
template <class I>
__device__ inline I grid_stride() {
    return static_cast<I>(gridDim.x) * static_cast<I>(blockDim.x);
}

template <class I>
static __global__ void conv_forward_kernel(GlobalPtr<const float> x, GlobalPtr<const float> w, GlobalPtr<const float> b,
                                           GlobalPtr<float> y, TrainConvShape shape) {
    const ConvDims<I> s(shape);
    const I total = s.n * s.k * s.p * s.q;
    for (I i = first_index<I>(); i < total; i += grid_stride<I>()) {
        const I q = i % s.q;
        const I p = (i / s.q) % s.p;
        const I k = (i / (s.q * s.p)) % s.k;
        const I n = i / (s.q * s.p * s.k);
        float acc = b[k];
        for (I c = 0; c < s.c; ++c) {
            const GlobalPtr<const float> plane = x + ((n * s.c + c) * s.h + p) * s.w + q;
            const GlobalPtr<const float> taps = w + (k * s.c + c) * s.r * s.r;
            for (I r = 0; r < s.r; ++r)
                for (I t = 0; t < s.r; ++t) acc += plane[r * s.w + t] * taps[r * s.r + t];
        }
        y[i] = acc;
    }
}

template <class I>
static __global__ void conv_backward_data_kernel(GlobalPtr<const float> dy, GlobalPtr<const float> w, GlobalPtr<float> dx,
                                                 TrainConvShape shape) {
    const ConvDims<I> s(shape);
    const I total = s.n * s.c * s.h * s.w;
    for (I i = first_index<I>(); i < total; i += grid_stride<I>()) {
        const I x = i % s.w;
        const I y = (i / s.w) % s.h;
        const I c = (i / (s.w * s.h)) % s.c;
        const I n = i / (s.w * s.h * s.c);
        // Taps (r, t) whose output position (y - r, x - t) lies inside the P x Q output. Written
        // without a negative intermediate, so an unsigned I is exact too.
        const I r_lo = y + 1 > s.p ? y + 1 - s.p : 0, r_hi = y < s.r - 1 ? y : s.r - 1;
        const I t_lo = x + 1 > s.q ? x + 1 - s.q : 0, t_hi = x < s.r - 1 ? x : s.r - 1;
        float acc = 0.0f;
        for (I k = 0; k < s.k; ++k) {
            const GlobalPtr<const float> grad = dy + (n * s.k + k) * s.p * s.q;
            const GlobalPtr<const float> taps = w + (k * s.c + c) * s.r * s.r;
            for (I r = r_lo; r <= r_hi; ++r)
                for (I t = t_lo; t <= t_hi; ++t) acc += grad[(y - r) * s.q + (x - t)] * taps[r * s.r + t];
        }
        dx[i] = acc;
    }
}

// The sum of every thread's `value` over the block, returned to every thread: a tree in `partial`
// (blockDim.x floats of shared memory; blockDim.x a power of two). Every thread of the block must
// call it; `partial` may be used again as soon as it returns.
static __device__ float block_sum(SharedPtr<float> partial, int t, float value) {
    partial[t] = value;
    __syncthreads();
    for (int half = static_cast<int>(blockDim.x) / 2; half > 0; half /= 2) {
        if (t < half) partial[t] = partial[t] + partial[t + half];
        __syncthreads();
    }
    const float total = partial[0];
    __syncthreads();
    return total;
}

// dw[k][c][r][t] = sum over n, p, q of dy[n][k][p][q] * x[n][c][p + r][q + t]: one block per weight
// (reduction_launch), its threads taking the N x P x Q terms with consecutive threads on
// consecutive q (coalesced loads of both planes), then a tree in shared memory. blockDim.x must be
// a power of two. The first version gave each weight one thread that summed all N x P x Q terms
// alone: for the first layer at batch 64, 288 threads of 43,264 serial terms on a GPU with
// thousands of cores, estimated 50-100x slower than cuDNN (issue 30); the simulator counts the
// loads per thread before and after (tests/test_sim.cpp).
template <class I>
static __global__ void conv_backward_weights_kernel(GlobalPtr<const float> x, GlobalPtr<const float> dy, GlobalPtr<float> dw,
                                                    TrainConvShape shape) {
    const ConvDims<I> s(shape);
    const SharedPtr<float> partial = dynamic_shared<float>();
    const int t = static_cast<int>(threadIdx.x);
    const I weights = s.k * s.c * s.r * s.r;
    const I pq = s.p * s.q, terms = s.n * pq;
    // i is the same for every thread of the block, so every thread calls block_sum.
    for (I i = static_cast<I>(blockIdx.x); i < weights; i += static_cast<I>(gridDim.x)) {
        const I tap = i % s.r;
        const I r = (i / s.r) % s.r;
        const I c = (i / (s.r * s.r)) % s.c;
        const I k = i / (s.r * s.r * s.c);
        float acc = 0.0f;
        for (I e = static_cast<I>(t); e < terms; e += static_cast<I>(blockDim.x)) {
            const I n = e / pq, at = e - n * pq;
            const I p = at / s.q, q = at - p * s.q;
            acc += dy[(n * s.k + k) * pq + at] * x[(n * s.c + c) * s.h * s.w + (p + r) * s.w + q + tap];
        }
        const float sum = block_sum(partial, t, acc);
        if (t == 0) dw[i] = sum;
    }
}

// db[k] = sum over n < images and i < plane of dy[(n * channels + k) * plane + i].
// The bias gradient: one block per channel (reduction_launch), its threads summing the
// channel's images x plane values with consecutive threads on consecutive addresses, so a warp's
// loads fall in few 32-byte sectors, then a tree in shared memory. blockDim.x must be a power of
// two. One thread per channel, the first version, walked all N x P x Q values alone and read a
// sector per lane: about 100x slower on a GPU for the first layer (issue 30); the simulator counts
// the difference (tests/test_gpu_train.cpp).
template <class I>
static __global__ void bias_gradient_kernel(GlobalPtr<const float> dy, GlobalPtr<float> db, int64_t images,
                                            int64_t channels, int64_t plane_size) {
    const SharedPtr<float> partial = dynamic_shared<float>();
    const int t = static_cast<int>(threadIdx.x);
    const I chans = static_cast<I>(channels), plane = static_cast<I>(plane_size);
    const I total = static_cast<I>(images) * plane;
    // k is the same for every thread of the block, so every thread calls block_sum.
    for (I k = static_cast<I>(blockIdx.x); k < chans; k += static_cast<I>(gridDim.x)) {
        float acc = 0.0f;
        for (I e = static_cast<I>(t); e < total; e += static_cast<I>(blockDim.x)) {
            const I n = e / plane;
            acc += dy[(n * chans + k) * plane + (e - n * plane)];
        }
        const float sum = block_sum(partial, t, acc);
        if (t == 0) db[k] = sum;
    }
}

// The largest tensor a convolution's kernels index (input, output or filters): what narrow_index
// (train_launch.h) is asked about.
inline int64_t conv_largest_tensor(const TrainConvShape& s) {
    const int64_t in = s.n * s.c * s.h * s.w, out = s.n * s.k * s.p * s.q, taps = s.k * s.c * s.r * s.r;
    return in > out ? (in > taps ? in : taps) : (out > taps ? out : taps);
}

}  // namespace gpulab::kern
