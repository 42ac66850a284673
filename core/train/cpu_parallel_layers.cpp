// cpu-parallel's training layers: every core (the shared thread pool) and SIMD in each.
//
//   conv forward          per image, y (K x PQ) = W (K x CRS) * col (CRS x PQ) from the bias, where
//                         col (im2col) holds each filter tap's view of the input. Threads over images.
//   conv backward-data    per image, dcol (CRS x PQ) = W^T (CRS x K) * dy (K x PQ), then col2im adds
//                         each column back onto the R x R inputs it came from. Threads over images.
//   conv backward-weights per image, dW (K x CRS) += dy (K x PQ) * rows (PQ x CRS), where `rows`
//                         (im2row) holds each output position's input window; each thread sums its
//                         slice of the batch into its own partial dW, then the partials are added in
//                         a fixed order (deterministic for a given number of threads).
//   dense                 the same matrix product (train_gemm.h), threaded over images or outputs.
//   ReLU, pooling, SGD    threaded, plain loops the compiler vectorises.
//   softmax loss          cpu-scalar's (10 numbers per image: nothing to gain).
//
// Why not the convolution lesson's kernel (cpu::conv2d_parallel, direct, vectorised along output
// rows): for the forward pass it fits, and it was tried first, but its vectors run along output rows
// of 26, 11 and 3 columns here, and on the 2-core box (batch 64, 2,000 images, load average about 7)
// it took 62-91 / 209-232 / 114-127 ms for conv1 / conv2 / conv3 against 31-33 / 133-173 / 33-58 ms
// for the matrix product, which also serves all three passes (measure again after the lesson's
// multi-channel rewrite, issue 17: the swap is one function). Backward-data is a convolution of dy
// with "full" padding (R - 1) and flipped, transposed weights, and Conv2dDesc offers only "same" and
// "valid" padding, so it would need a padded copy of dy and runs along rows of 13 or 5 columns;
// backward-weights is a correlation whose "filter" is the whole 26x26 or 11x11 gradient plane,
// beyond that kernel's odd sizes up to 15. A matrix product serves both, and the dense layers too.
// Verified by tests/test_train_layers.cpp: each function against cpu-scalar's within 1e-4 relative.
#include <algorithm>
#include <cstring>
#include <vector>

#include "thread_pool.h"
#include "train/cpu_layers.h"
#include "train/train_gemm.h"

namespace gpulab::train {

namespace {

cpu::ThreadPool& pool() { return cpu::ThreadPool::shared(); }

// Calls fn(t, begin, end) for `slices` contiguous slices of [0, n), one task each, spread over the
// pool's threads. A slice index lets a task own scratch or a partial sum.
template <class Fn>
void for_slices(std::int64_t n, std::int64_t slices, const Fn& fn) {
    slices = std::max<std::int64_t>(1, std::min(slices, n));
    pool().parallel_for(
        slices,
        [&](std::int64_t b, std::int64_t e) {
            for (std::int64_t t = b; t < e; ++t) fn(t, n * t / slices, n * (t + 1) / slices);
        },
        1);
}

// [SECTION] convolution

// col[((c * R + r) * R + t) * PQ + p * Q + q] = x[c][p + r][q + t]: one row per filter tap (im2col).
void im2col(const ConvShape& s, const float* x, float* col) {
    const std::int64_t P = s.p(), Q = s.q(), R = s.r;
    for (std::int64_t c = 0; c < s.c; ++c)
        for (std::int64_t r = 0; r < R; ++r)
            for (std::int64_t t = 0; t < R; ++t) {
                float* out = col + ((c * R + r) * R + t) * P * Q;
                for (std::int64_t p = 0; p < P; ++p) {
                    const float* in = x + (c * s.h + p + r) * s.w + t;
                    for (std::int64_t q = 0; q < Q; ++q) *out++ = in[q];
                }
            }
}

// Per image: y (K x PQ) = W (K x CRS) * col (CRS x PQ), starting from the bias. Threads over images.
void conv_forward(const ConvShape& s, const float* x, const float* w, const float* b, float* y) {
    const std::int64_t PQ = s.p() * s.q(), crs = s.c * s.r * s.r;
    pool().parallel_for(
        s.n,
        [&](std::int64_t begin, std::int64_t end) {
            thread_local std::vector<float> col;
            col.resize(static_cast<std::size_t>(crs * PQ));
            for (std::int64_t n = begin; n < end; ++n) {
                im2col(s, x + n * s.c * s.h * s.w, col.data());
                float* out = y + n * s.k * PQ;
                for (std::int64_t k = 0; k < s.k; ++k) std::fill(out + k * PQ, out + (k + 1) * PQ, b[k]);
                gemm(s.k, PQ, crs, w, crs, 1, col.data(), PQ, out, PQ, true);
            }
        },
        1);
}

// rows[(p * Q + q) * CRS + (c * R + r) * R + t] = x[c][p + r][q + t]: one row per output position.
void im2row(const ConvShape& s, const float* x, float* rows) {
    const std::int64_t P = s.p(), Q = s.q(), R = s.r, crs = s.c * R * R;
    for (std::int64_t p = 0; p < P; ++p)
        for (std::int64_t q = 0; q < Q; ++q) {
            float* row = rows + (p * Q + q) * crs;
            for (std::int64_t c = 0; c < s.c; ++c)
                for (std::int64_t r = 0; r < R; ++r) {
                    const float* in = x + (c * s.h + p + r) * s.w + q;
                    for (std::int64_t t = 0; t < R; ++t) *row++ = in[t];
                }
        }
}

void conv_backward_data(const ConvShape& s, const float* dy, const float* w, float* dx) {
    const std::int64_t P = s.p(), Q = s.q(), R = s.r, crs = s.c * R * R, image = s.c * s.h * s.w;
    pool().parallel_for(
        s.n,
        [&](std::int64_t begin, std::int64_t end) {
            thread_local std::vector<float> dcol;
            dcol.resize(static_cast<std::size_t>(crs * P * Q));
            for (std::int64_t n = begin; n < end; ++n) {
                // A(i = crs, m = k) = w[k * crs + i]: W transposed, read in place.
                gemm(crs, P * Q, s.k, w, 1, crs, dy + n * s.k * P * Q, P * Q, dcol.data(), P * Q, false);
                float* out = dx + n * image;
                std::fill(out, out + image, 0.0f);
                for (std::int64_t c = 0; c < s.c; ++c)
                    for (std::int64_t r = 0; r < R; ++r)
                        for (std::int64_t t = 0; t < R; ++t) {
                            const float* col = dcol.data() + ((c * R + r) * R + t) * P * Q;
                            for (std::int64_t p = 0; p < P; ++p) {
                                float* o = out + (c * s.h + p + r) * s.w + t;
                                for (std::int64_t q = 0; q < Q; ++q) o[q] += col[p * Q + q];
                            }
                        }
            }
        },
        1);
}

void conv_backward_weights(const ConvShape& s, const float* x, const float* dy, float* dw, float* db) {
    const std::int64_t P = s.p(), Q = s.q(), R = s.r, crs = s.c * R * R, weights = s.k * crs;
    const std::int64_t slices = pool().size();
    std::vector<float> partial(static_cast<std::size_t>(slices * (weights + s.k)), 0.0f);
    for_slices(s.n, slices, [&](std::int64_t t, std::int64_t begin, std::int64_t end) {
        thread_local std::vector<float> rows;
        rows.resize(static_cast<std::size_t>(P * Q * crs));
        float* part = partial.data() + t * (weights + s.k);
        for (std::int64_t n = begin; n < end; ++n) {
            const float* g = dy + n * s.k * P * Q;
            im2row(s, x + n * s.c * s.h * s.w, rows.data());
            gemm(s.k, crs, P * Q, g, P * Q, 1, rows.data(), crs, part, crs, n > begin);
            for (std::int64_t k = 0; k < s.k; ++k) {
                float sum = 0.0f;
                for (std::int64_t i = 0; i < P * Q; ++i) sum += g[k * P * Q + i];
                part[weights + k] += sum;
            }
        }
    });
    std::copy(partial.begin(), partial.begin() + weights, dw);
    std::copy(partial.begin() + weights, partial.begin() + weights + s.k, db);
    for (std::int64_t t = 1; t < std::min(slices, s.n); ++t) {
        const float* part = partial.data() + t * (weights + s.k);
        for (std::int64_t i = 0; i < weights; ++i) dw[i] += part[i];
        for (std::int64_t k = 0; k < s.k; ++k) db[k] += part[weights + k];
    }
}

// [SECTION] ReLU and max pooling

constexpr std::int64_t kElementChunk = 16384;

void relu_forward(std::int64_t count, const float* x, float* y) {
    pool().parallel_for(count, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
    }, kElementChunk);
}

// dy is loaded on every element, not only where y > 0: then the compiler can turn the choice into a
// vector blend. Written as cpu-scalar's `y > 0 ? dy : 0`, it became a branch per element that the
// CPU mispredicts about half the time (ReLU outputs are zero about half the time): 5x slower.
void relu_backward(std::int64_t count, const float* y, const float* dy, float* dx) {
    pool().parallel_for(count, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
            const float g = dy[i];
            dx[i] = y[i] > 0.0f ? g : 0.0f;
        }
    }, kElementChunk);
}

// Pooling forward without branches: which of the four inputs is the maximum is unpredictable, so
// cpu-scalar's compare-and-branch search is replaced by max() (the same value on ties). Backward
// keeps the search, which says where the gradient goes (a select-based version measured slower).
void maxpool_forward(std::int64_t planes, std::int64_t h, std::int64_t w, const float* x, float* y) {
    const std::int64_t oh = h / 2, ow = w / 2;
    pool().parallel_for(planes, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t pl = b; pl < e; ++pl)
            for (std::int64_t i = 0; i < oh; ++i) {
                const float* r0 = x + (pl * h + 2 * i) * w;
                const float* r1 = r0 + w;
                float* out = y + (pl * oh + i) * ow;
                for (std::int64_t j = 0; j < ow; ++j)
                    out[j] = std::max(std::max(r0[2 * j], r0[2 * j + 1]), std::max(r1[2 * j], r1[2 * j + 1]));
            }
    }, 32);
}

void maxpool_backward(std::int64_t planes, std::int64_t h, std::int64_t w, const float* x, const float* dy, float* dx) {
    const std::int64_t oh = h / 2, ow = w / 2;
    pool().parallel_for(planes, [&](std::int64_t b, std::int64_t e) {
        std::fill(dx + b * h * w, dx + e * h * w, 0.0f);
        for (std::int64_t pl = b; pl < e; ++pl)
            for (std::int64_t i = 0; i < oh; ++i)
                for (std::int64_t j = 0; j < ow; ++j)
                    dx[pl * h * w + pool_window_argmax(x + pl * h * w, w, i, j)] = dy[(pl * oh + i) * ow + j];
    }, 32);
}

// [SECTION] dense

constexpr std::int64_t kDenseRows = 24;  // images per task: 4 blocks of 6 rows

void dense_forward(std::int64_t n, std::int64_t in, std::int64_t out, const float* x, const float* w, const float* b,
                   float* y) {
    // y = x * W^T: W transposed once (in x out, contiguous outputs) so B's rows are contiguous.
    std::vector<float> wt(static_cast<std::size_t>(in * out));
    for (std::int64_t o = 0; o < out; ++o)
        for (std::int64_t i = 0; i < in; ++i) wt[i * out + o] = w[o * in + i];
    pool().parallel_for(n, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t m = begin; m < end; ++m) std::copy(b, b + out, y + m * out);
        gemm(end - begin, out, in, x + begin * in, in, 1, wt.data(), out, y + begin * out, out, true);
    }, kDenseRows);
}

void dense_backward_data(std::int64_t n, std::int64_t in, std::int64_t out, const float* dy, const float* w,
                         float* dx) {
    pool().parallel_for(n, [&](std::int64_t begin, std::int64_t end) {
        gemm(end - begin, in, out, dy + begin * out, out, 1, w, in, dx + begin * in, in, false);
    }, kDenseRows);
}

void dense_backward_weights(std::int64_t n, std::int64_t in, std::int64_t out, const float* x, const float* dy,
                            float* dw, float* db) {
    // dW (out x in) = dy^T (out x n) * x (n x in); A = dy read transposed in place.
    pool().parallel_for(out, [&](std::int64_t begin, std::int64_t end) {
        gemm(end - begin, in, n, dy + begin, 1, out, x, in, dw + begin * in, in, false);
        for (std::int64_t o = begin; o < end; ++o) {
            float sum = 0.0f;
            for (std::int64_t m = 0; m < n; ++m) sum += dy[m * out + o];
            db[o] = sum;
        }
    }, 6);
}

// [SECTION] update

void sgd_momentum(std::int64_t count, const Sgd& sgd, float* w, float* v, const float* g) {
    const float mu = sgd.momentum, rate = sgd.learning_rate;
    pool().parallel_for(count, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
            v[i] = mu * v[i] - rate * g[i];
            w[i] += v[i];
        }
    }, kElementChunk);
}

}  // namespace

const CpuLayerOps& parallel_layer_ops() {
    static const CpuLayerOps ops{"cpu-parallel",
                                 conv_forward,
                                 conv_backward_data,
                                 conv_backward_weights,
                                 relu_forward,
                                 relu_backward,
                                 maxpool_forward,
                                 maxpool_backward,
                                 dense_forward,
                                 dense_backward_data,
                                 dense_backward_weights,
                                 scalar_layer_ops().softmax_cross_entropy,
                                 sgd_momentum,
                                 "convolutions (forward, backward-data, backward-weights) and dense layers: im2col + "
                                 "a register-blocked SIMD matrix product; threads over the batch"};
    return ops;
}

}  // namespace gpulab::train
