// The layers of training on the CPU, batch at a time, N,C,H,W tensors, as two sets of functions
// with the same signatures: `scalar` (the reference: plain loops, one core, written to be read and
// used for gradient checks) and `parallel` (threads from the shared pool, vectorised). One CPU
// engine (cpu_engine.cpp) runs a ModelDesc with either set.
//
// Conventions: every *_backward writes (never accumulates into) its outputs; dW, db and dx are
// gradients of the same scalar loss the upstream gradient dy belongs to. Max pooling passes the
// gradient to the first maximum of each window in row-major order, in both sets, so the two agree
// exactly on ties. Verified by tests/test_train_layers.cpp: finite differences for every scalar
// layer, and parallel against scalar within a stated tolerance.
#pragma once

#include <cstdint>

#include "engine.h"

namespace gpulab::train {

// A "valid" convolution, stride 1: in N,C,H,W; weights K,C,R,R; out N,K,P,Q with P = H-R+1.
struct ConvShape {
    std::int64_t n = 1, c = 1, h = 1, w = 1, k = 1, r = 3;
    std::int64_t p() const { return h - r + 1; }
    std::int64_t q() const { return w - r + 1; }
};

struct CpuLayerOps {
    const char* name;
    void (*conv_forward)(const ConvShape&, const float* x, const float* w, const float* b, float* y);
    void (*conv_backward_data)(const ConvShape&, const float* dy, const float* w, float* dx);
    void (*conv_backward_weights)(const ConvShape&, const float* x, const float* dy, float* dw, float* db);
    void (*relu_forward)(std::int64_t count, const float* x, float* y);
    // Uses the forward output y: the gradient passes where y > 0.
    void (*relu_backward)(std::int64_t count, const float* y, const float* dy, float* dx);
    // planes = N * C; windows 2x2, stride 2; an odd last row or column is dropped.
    void (*maxpool_forward)(std::int64_t planes, std::int64_t h, std::int64_t w, const float* x, float* y);
    void (*maxpool_backward)(std::int64_t planes, std::int64_t h, std::int64_t w, const float* x, const float* dy,
                             float* dx);
    // x: n x in, weights out x in, y: n x out.
    void (*dense_forward)(std::int64_t n, std::int64_t in, std::int64_t out, const float* x, const float* w,
                          const float* b, float* y);
    void (*dense_backward_data)(std::int64_t n, std::int64_t in, std::int64_t out, const float* dy, const float* w,
                                float* dx);
    void (*dense_backward_weights)(std::int64_t n, std::int64_t in, std::int64_t out, const float* x, const float* dy,
                                   float* dw, float* db);
    // Mean cross-entropy of softmax(logits) against labels; dlogits = (softmax - one_hot) / n.
    BatchResult (*softmax_cross_entropy)(std::int64_t n, std::int64_t classes, const float* logits,
                                         const std::uint8_t* labels, float* dlogits);
    // v = momentum * v - rate * g; w += v.
    void (*sgd_momentum)(std::int64_t count, const Sgd& sgd, float* w, float* v, const float* g);
    const char* implementation;  // what runs, in words
};

// The index (within a plane of width w) of the first maximum, in row-major order, of the 2x2
// window at pooled position (i, j). Both sets use it, so they route gradients identically on ties.
inline std::int64_t pool_window_argmax(const float* plane, std::int64_t w, std::int64_t i, std::int64_t j) {
    std::int64_t best = (2 * i) * w + 2 * j;
    for (std::int64_t a = 0; a < 2; ++a)
        for (std::int64_t b = 0; b < 2; ++b) {
            const std::int64_t at = (2 * i + a) * w + 2 * j + b;
            if (plane[at] > plane[best]) best = at;
        }
    return best;
}

const CpuLayerOps& scalar_layer_ops();
const CpuLayerOps& parallel_layer_ops();

}  // namespace gpulab::train
