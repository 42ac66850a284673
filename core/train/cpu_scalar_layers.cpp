// cpu-scalar's training layers: the reference. Plain loops that follow the formulas, one core, no
// tricks; cpu_layers.h lists the conventions and tests/test_train_layers.cpp checks every one of
// them against finite differences. Sums of many terms are kept in double where a float sum would
// lose digits the gradient checks need (the loss, the bias and weight gradients).
#include <algorithm>
#include <cmath>

#include "cpu_layers.h"

namespace gpulab::train {

namespace {

// [SECTION] convolution: y[n][k][p][q] = b[k] + sum over c, r, s of x[n][c][p+r][q+s] * w[k][c][r][s]

void conv_forward(const ConvShape& s, const float* x, const float* w, const float* b, float* y) {
    const std::int64_t P = s.p(), Q = s.q(), R = s.r;
    for (std::int64_t n = 0; n < s.n; ++n)
        for (std::int64_t k = 0; k < s.k; ++k)
            for (std::int64_t p = 0; p < P; ++p)
                for (std::int64_t q = 0; q < Q; ++q) {
                    float acc = b[k];
                    for (std::int64_t c = 0; c < s.c; ++c)
                        for (std::int64_t r = 0; r < R; ++r)
                            for (std::int64_t t = 0; t < R; ++t)
                                acc += x[((n * s.c + c) * s.h + p + r) * s.w + q + t] * w[((k * s.c + c) * R + r) * R + t];
                    y[((n * s.k + k) * P + p) * Q + q] = acc;
                }
}

// Each output's gradient flows back to the R x R inputs it read, weighted by the same taps.
void conv_backward_data(const ConvShape& s, const float* dy, const float* w, float* dx) {
    const std::int64_t P = s.p(), Q = s.q(), R = s.r;
    std::fill(dx, dx + s.n * s.c * s.h * s.w, 0.0f);
    for (std::int64_t n = 0; n < s.n; ++n)
        for (std::int64_t k = 0; k < s.k; ++k)
            for (std::int64_t p = 0; p < P; ++p)
                for (std::int64_t q = 0; q < Q; ++q) {
                    const float g = dy[((n * s.k + k) * P + p) * Q + q];
                    for (std::int64_t c = 0; c < s.c; ++c)
                        for (std::int64_t r = 0; r < R; ++r)
                            for (std::int64_t t = 0; t < R; ++t)
                                dx[((n * s.c + c) * s.h + p + r) * s.w + q + t] += g * w[((k * s.c + c) * R + r) * R + t];
                }
}

// A tap's gradient is the sum, over every image and position, of upstream gradient times the input
// that tap saw there.
void conv_backward_weights(const ConvShape& s, const float* x, const float* dy, float* dw, float* db) {
    const std::int64_t P = s.p(), Q = s.q(), R = s.r;
    for (std::int64_t k = 0; k < s.k; ++k) {
        double bias = 0.0;
        for (std::int64_t n = 0; n < s.n; ++n)
            for (std::int64_t i = 0; i < P * Q; ++i) bias += dy[(n * s.k + k) * P * Q + i];
        db[k] = static_cast<float>(bias);
        for (std::int64_t c = 0; c < s.c; ++c)
            for (std::int64_t r = 0; r < R; ++r)
                for (std::int64_t t = 0; t < R; ++t) {
                    double acc = 0.0;
                    for (std::int64_t n = 0; n < s.n; ++n)
                        for (std::int64_t p = 0; p < P; ++p)
                            for (std::int64_t q = 0; q < Q; ++q)
                                acc += static_cast<double>(dy[((n * s.k + k) * P + p) * Q + q]) *
                                       x[((n * s.c + c) * s.h + p + r) * s.w + q + t];
                    dw[((k * s.c + c) * R + r) * R + t] = static_cast<float>(acc);
                }
    }
}

// [SECTION] ReLU and max pooling

void relu_forward(std::int64_t count, const float* x, float* y) {
    for (std::int64_t i = 0; i < count; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void relu_backward(std::int64_t count, const float* y, const float* dy, float* dx) {
    for (std::int64_t i = 0; i < count; ++i) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

void maxpool_forward(std::int64_t planes, std::int64_t h, std::int64_t w, const float* x, float* y) {
    const std::int64_t oh = h / 2, ow = w / 2;
    for (std::int64_t pl = 0; pl < planes; ++pl)
        for (std::int64_t i = 0; i < oh; ++i)
            for (std::int64_t j = 0; j < ow; ++j)
                y[(pl * oh + i) * ow + j] = x[pl * h * w + pool_window_argmax(x + pl * h * w, w, i, j)];
}

// Only the input that won the window's maximum affected the output, so only it gets gradient.
void maxpool_backward(std::int64_t planes, std::int64_t h, std::int64_t w, const float* x, const float* dy, float* dx) {
    const std::int64_t oh = h / 2, ow = w / 2;
    std::fill(dx, dx + planes * h * w, 0.0f);
    for (std::int64_t pl = 0; pl < planes; ++pl)
        for (std::int64_t i = 0; i < oh; ++i)
            for (std::int64_t j = 0; j < ow; ++j)
                dx[pl * h * w + pool_window_argmax(x + pl * h * w, w, i, j)] = dy[(pl * oh + i) * ow + j];
}

// [SECTION] dense: y[n][o] = b[o] + sum over i of w[o][i] * x[n][i]

void dense_forward(std::int64_t n, std::int64_t in, std::int64_t out, const float* x, const float* w, const float* b,
                   float* y) {
    for (std::int64_t m = 0; m < n; ++m)
        for (std::int64_t o = 0; o < out; ++o) {
            float acc = b[o];
            for (std::int64_t i = 0; i < in; ++i) acc += w[o * in + i] * x[m * in + i];
            y[m * out + o] = acc;
        }
}

void dense_backward_data(std::int64_t n, std::int64_t in, std::int64_t out, const float* dy, const float* w,
                         float* dx) {
    for (std::int64_t m = 0; m < n; ++m)
        for (std::int64_t i = 0; i < in; ++i) {
            float acc = 0.0f;
            for (std::int64_t o = 0; o < out; ++o) acc += dy[m * out + o] * w[o * in + i];
            dx[m * in + i] = acc;
        }
}

void dense_backward_weights(std::int64_t n, std::int64_t in, std::int64_t out, const float* x, const float* dy,
                            float* dw, float* db) {
    for (std::int64_t o = 0; o < out; ++o) {
        double bias = 0.0;
        for (std::int64_t m = 0; m < n; ++m) bias += dy[m * out + o];
        db[o] = static_cast<float>(bias);
        for (std::int64_t i = 0; i < in; ++i) {
            double acc = 0.0;
            for (std::int64_t m = 0; m < n; ++m) acc += static_cast<double>(dy[m * out + o]) * x[m * in + i];
            dw[o * in + i] = static_cast<float>(acc);
        }
    }
}

// [SECTION] loss and update

BatchResult softmax_cross_entropy(std::int64_t n, std::int64_t classes, const float* logits,
                                  const std::uint8_t* labels, float* dlogits) {
    BatchResult r;
    for (std::int64_t m = 0; m < n; ++m) {
        const float* l = logits + m * classes;
        // Subtracting the largest logit keeps exp() from overflowing; softmax is unchanged by it.
        std::int64_t best = 0;
        for (std::int64_t c = 1; c < classes; ++c)
            if (l[c] > l[best]) best = c;
        double sum = 0.0;
        for (std::int64_t c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(l[c] - l[best]));
        r.loss += std::log(sum) - static_cast<double>(l[labels[m]] - l[best]);
        r.correct += best == labels[m] ? 1 : 0;
        for (std::int64_t c = 0; c < classes; ++c) {
            const double p = std::exp(static_cast<double>(l[c] - l[best])) / sum;
            dlogits[m * classes + c] = static_cast<float>((p - (c == labels[m] ? 1.0 : 0.0)) / static_cast<double>(n));
        }
    }
    r.loss /= static_cast<double>(n);
    return r;
}

void sgd_momentum(std::int64_t count, const Sgd& sgd, float* w, float* v, const float* g) {
    for (std::int64_t i = 0; i < count; ++i) {
        v[i] = sgd.momentum * v[i] - sgd.learning_rate * g[i];
        w[i] += v[i];
    }
}

}  // namespace

const CpuLayerOps& scalar_layer_ops() {
    static const CpuLayerOps ops{"cpu-scalar",          conv_forward,         conv_backward_data,
                                 conv_backward_weights, relu_forward,         relu_backward,
                                 maxpool_forward,       maxpool_backward,     dense_forward,
                                 dense_backward_data,   dense_backward_weights, softmax_cross_entropy,
                                 sgd_momentum,          "plain loops on one core (the reference)"};
    return ops;
}

}  // namespace gpulab::train
