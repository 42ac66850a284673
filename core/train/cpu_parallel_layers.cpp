// cpu-parallel's training layers: every core (the shared thread pool) and SIMD in each.
//
//   conv forward          the convolution lesson's cpu::conv2d_parallel (valid padding, plus the bias):
//                         its output-channel kernel where it fits, else im2col + the matrix product.
//   conv backward-data    per group of images (enough for ~256 output positions), dcol (CRS x g*PQ) =
//                         W^T (CRS x K) * dy (K x g*PQ), then col2im adds each column back onto the
//                         R x R inputs it came from. Threads over groups.
//   conv backward-weights per group, dW^T (CRS x K) += col (CRS x g*PQ) * dy^T (g*PQ x K) (im2col);
//                         where output rows are no longer than the window, dW (K x CRS) += dy * rows
//                         (im2row) per image instead. Each thread sums its slice of the batch into its
//                         own partial, then the partials are added in a fixed order (deterministic
//                         for a given number of threads).
//   dense                 the same matrix product (train_gemm.h), threaded over images or outputs.
//   ReLU, pooling, SGD    threaded, plain loops the compiler vectorises.
//   softmax loss          cpu-scalar's (10 numbers per image: nothing to gain).
//
// The forward pass is the lesson's convolution since issue 17 gave it an output-channel kernel and an
// im2col + GEMM path on this same matrix product (one implementation for both; training's own im2col
// forward was deleted). Backward-data is a convolution of dy with "full" padding (R - 1) and
// flipped, transposed weights, and Conv2dDesc offers only "same" and "valid" padding, so it would
// need a padded copy of dy; backward-weights is a correlation whose "filter" is the whole 26x26 or
// 11x11 gradient plane, beyond the lesson's kernel sizes. A matrix product serves both.
// Verified by tests/test_train_layers.cpp: each function against cpu-scalar's within 1e-4 relative.
#include <algorithm>
#include <cstring>
#include <vector>

#include "backends/conv2d/cpu_conv2d.h"
#include "runtime/thread_pool.h"
#include "cpu_layers.h"
#include "backends/simd/train_gemm.h"

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

// The convolution lesson's cpu-parallel convolution with "valid" padding and the bias: per shape it
// picks its output-channel kernel (conv2, conv3) or im2col + the matrix product below (conv1: one
// input channel), threads over the batch or over pixel panels (cpu_conv2d.h).
void conv_forward(const ConvShape& s, const float* x, const float* w, const float* b, float* y) {
    core::Conv2dDesc d;
    d.batch = s.n;
    d.channels = s.c;
    d.height = s.h;
    d.width = s.w;
    d.filters = s.k;
    d.kernel = s.r;
    d.padding = core::Padding::None;
    cpu::conv2d_parallel_bias(d, x, w, b, y);
}

// col[((c * R + r) * R + t) * ld + q0 + p * Q + q] = x[c][p + r][q + t]: one row per filter tap
// (im2col), written from column q0 of rows `ld` floats long, so a group of images sits side by side.
// Each copy is one output row (Q contiguous floats), not one window row of R floats (im2row).
void im2col(const ConvShape& s, const float* x, float* col, std::int64_t ld, std::int64_t q0) {
    const std::int64_t P = s.p(), Q = s.q(), R = s.r;
    for (std::int64_t c = 0; c < s.c; ++c)
        for (std::int64_t r = 0; r < R; ++r)
            for (std::int64_t t = 0; t < R; ++t) {
                float* out = col + ((c * R + r) * R + t) * ld + q0;
                for (std::int64_t p = 0; p < P; ++p)
                    std::memcpy(out + p * Q, x + (c * s.h + p + r) * s.w + t, Q * sizeof(float));
            }
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

// Images per matrix product in the backward passes: enough that the product's width (backward-data)
// or inner dimension (backward-weights) reaches about 256 even where a layer's output is 3x3 (conv3:
// 9 positions per image). One image at a time, conv3's backward-weights loaded and stored its
// 64 x 576 block of dW for every 9 multiply-adds, and backward-data ran 9-wide products padded to 16.
std::int64_t image_group(std::int64_t pq, std::int64_t n) {
    return std::clamp<std::int64_t>((256 + pq - 1) / pq, 1, std::max<std::int64_t>(1, n));
}

// dyg[k][j * PQ + i] = dy[n0 + j][k][i] for j < g: a group's output gradients side by side (K x g*PQ).
void gather_dy(const ConvShape& s, const float* dy, std::int64_t n0, std::int64_t g, float* dyg) {
    const std::int64_t PQ = s.p() * s.q();
    for (std::int64_t k = 0; k < s.k; ++k)
        for (std::int64_t j = 0; j < g; ++j)
            std::memcpy(dyg + (k * g + j) * PQ, dy + ((n0 + j) * s.k + k) * PQ, PQ * sizeof(float));
}

// Per group of images: dcol (CRS x g*PQ) = W^T (CRS x K) * dyg (K x g*PQ), then col2im adds each
// column back onto the R x R inputs it came from. Threads over groups.
void conv_backward_data(const ConvShape& s, const float* dy, const float* w, float* dx) {
    const std::int64_t P = s.p(), Q = s.q(), PQ = P * Q, R = s.r, crs = s.c * R * R, image = s.c * s.h * s.w;
    const std::int64_t group = image_group(PQ, s.n), groups = (s.n + group - 1) / group;
    pool().parallel_for(
        groups,
        [&](std::int64_t begin, std::int64_t end) {
            thread_local std::vector<float> dcol, dyg;
            dcol.resize(static_cast<std::size_t>(crs * group * PQ));
            dyg.resize(static_cast<std::size_t>(s.k * group * PQ));
            for (std::int64_t gi = begin; gi < end; ++gi) {
                const std::int64_t n0 = gi * group, g = std::min(group, s.n - n0), width = g * PQ;
                gather_dy(s, dy, n0, g, dyg.data());
                // A(i = crs, m = k) = w[k * crs + i]: W transposed, read in place.
                gemm(crs, width, s.k, w, 1, crs, dyg.data(), width, dcol.data(), width, false);
                for (std::int64_t j = 0; j < g; ++j) {
                    float* out = dx + (n0 + j) * image;
                    std::fill(out, out + image, 0.0f);
                    for (std::int64_t c = 0; c < s.c; ++c)
                        for (std::int64_t r = 0; r < R; ++r)
                            for (std::int64_t t = 0; t < R; ++t) {
                                const float* col = dcol.data() + ((c * R + r) * R + t) * width + j * PQ;
                                for (std::int64_t p = 0; p < P; ++p) {
                                    float* o = out + (c * s.h + p + r) * s.w + t;
                                    for (std::int64_t q = 0; q < Q; ++q) o[q] += col[p * Q + q];
                                }
                            }
                }
            }
        },
        1);
}

// Per group of images: dW^T (CRS x K) += col (CRS x g*PQ) * dy^T (g*PQ x K), with col the group's
// im2col matrices side by side and dy^T its output gradients transposed (a small copy). Computed as
// dW^T so that the long copies are im2col's output rows: the dW = dy * im2row form copies R floats
// at a time (conv2, AVX-512, CPU time per 8 images: 387-409 us before this change, 281-295 us with
// it, shorter rows below). Each thread sums its slice of the batch into its own
// partial, then the partials are added in a fixed order (deterministic for a given number of threads).
// Output rows no longer than the window (conv3: 3x3 outputs of a 3x3 window): im2col's copies are
// then as short as im2row's and its dy^T copy is extra, so dW (K x CRS) += dy (K x PQ) * rows
// (PQ x CRS), image by image (conv3, AVX-512, CPU time per 8 images: 72-78 us this way, 85-88 us the
// other; conv1 and conv2 the other way round: 166 / 321-351 us here, 128-133 / 281-295 us there).
void conv_backward_weights_short_rows(const ConvShape& s, const float* x, const float* dy, float* dw, float* db) {
    const std::int64_t PQ = s.p() * s.q(), crs = s.c * s.r * s.r, weights = s.k * crs;
    const std::int64_t slices = pool().size();
    std::vector<float> partial(static_cast<std::size_t>(slices * (weights + s.k)), 0.0f);
    for_slices(s.n, slices, [&](std::int64_t t, std::int64_t begin, std::int64_t end) {
        thread_local std::vector<float> rows;
        rows.resize(static_cast<std::size_t>(PQ * crs));
        float* part = partial.data() + t * (weights + s.k);
        for (std::int64_t n = begin; n < end; ++n) {
            const float* g = dy + n * s.k * PQ;
            im2row(s, x + n * s.c * s.h * s.w, rows.data());
            gemm(s.k, crs, PQ, g, PQ, 1, rows.data(), crs, part, crs, n > begin);
            for (std::int64_t k = 0; k < s.k; ++k) {
                float sum = 0.0f;
                for (std::int64_t i = 0; i < PQ; ++i) sum += g[k * PQ + i];
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

void conv_backward_weights(const ConvShape& s, const float* x, const float* dy, float* dw, float* db) {
    const std::int64_t PQ = s.p() * s.q(), crs = s.c * s.r * s.r, weights = s.k * crs;
    if (s.q() <= s.r) {
        conv_backward_weights_short_rows(s, x, dy, dw, db);
        return;
    }
    const std::int64_t slices = pool().size(), group = image_group(PQ, s.n);
    std::vector<float> partial(static_cast<std::size_t>(slices * (weights + s.k)), 0.0f);
    for_slices(s.n, slices, [&](std::int64_t t, std::int64_t begin, std::int64_t end) {
        thread_local std::vector<float> col, dyt;
        col.resize(static_cast<std::size_t>(crs * group * PQ));
        dyt.resize(static_cast<std::size_t>(group * PQ * s.k));
        float* part = partial.data() + t * (weights + s.k);  // dW^T (CRS x K), then db
        for (std::int64_t n0 = begin; n0 < end; n0 += group) {
            const std::int64_t g = std::min(group, end - n0), width = g * PQ;
            for (std::int64_t j = 0; j < g; ++j) {
                im2col(s, x + (n0 + j) * s.c * s.h * s.w, col.data(), width, j * PQ);
                const float* gy = dy + (n0 + j) * s.k * PQ;
                for (std::int64_t k = 0; k < s.k; ++k) {
                    float sum = 0.0f;
                    for (std::int64_t i = 0; i < PQ; ++i) {
                        dyt[(j * PQ + i) * s.k + k] = gy[k * PQ + i];
                        sum += gy[k * PQ + i];
                    }
                    part[weights + k] += sum;
                }
            }
            gemm(crs, s.k, width, col.data(), width, 1, dyt.data(), s.k, part, s.k, n0 > begin);
        }
    });
    // The partials summed in slice order (contiguous adds), then dW^T transposed into dw once.
    const std::int64_t used = std::min(slices, s.n);
    for (std::int64_t t = 1; t < used; ++t) {
        const float* part = partial.data() + t * (weights + s.k);
        for (std::int64_t i = 0; i < weights + s.k; ++i) partial[static_cast<std::size_t>(i)] += part[i];
    }
    for (std::int64_t i = 0; i < crs; ++i)
        for (std::int64_t k = 0; k < s.k; ++k) dw[k * crs + i] = partial[static_cast<std::size_t>(i * s.k + k)];
    std::copy(partial.begin() + weights, partial.begin() + weights + s.k, db);
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
    static const CpuLayerOps ops{
        "cpu-parallel",
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
        "convolution forward: the convolution lesson's cpu-parallel kernels (output channels in "
        "the vector, or im2col + GEMM for one input channel); backward-data, backward-weights "
        "and dense layers: a register-blocked SIMD matrix product; threads over the batch"};
    return ops;
}

}  // namespace gpulab::train
