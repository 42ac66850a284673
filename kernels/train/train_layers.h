// The training layers as kernel launches, written once for any device (SimDevice on the SIMT
// simulator, CudaDevice on a GPU; see sim_device.h for the members a device offers). Each function
// launches the kernels of one layer step with the configuration from train_launch.h; the engine
// body (gpu_train_engine_body.h) strings them together, and the tests run each against cpu-scalar's
// layer function (tests/test_gpu_train.cpp).
//
// Include a device environment (cuda_device_env.cuh or sim/sim_device_env.h) first, then this
// header: it includes the kernel headers, which need that environment.
#pragma once

#include <cstdint>

#include "conv_train_kernels.cuh"
#include "loss_kernels.cuh"
#include "loss_scale_kernels.cuh"
#include "matmul_kernel.cuh"
#include "pool_relu_kernels.cuh"
#include "sgd_kernel.cuh"
#include "train_launch.h"

namespace gpulab::kern::layers {

// Per-image loss and correct flag, and the gradient of the mean loss in `dlogits` (n x classes).
template <class Dev>
void softmax_cross_entropy(Dev& dev, int64_t n, int classes, GlobalPtr<const float> logits,
                           GlobalPtr<const uint8_t> labels, GlobalPtr<float> loss, GlobalPtr<int> correct,
                           GlobalPtr<float> dlogits) {
    dev.launch("softmax_xent_forward_kernel", per_image_launch(n), &softmax_xent_forward_kernel, logits, labels,
               loss, correct, n, classes);
    dev.launch("softmax_xent_backward_kernel", per_image_launch(n), &softmax_xent_backward_kernel, logits, labels,
               dlogits, n, classes);
}

// x *= factor over `count` values (loss scaling: the loss gradient by S, the weight gradients by 1/S).
template <class Dev>
void scale_values(Dev& dev, int64_t count, float factor, GlobalPtr<float> x) {
    dev.launch("scale_kernel", elementwise_launch(count), &scale_kernel, x, count, factor);
}

// flag[0] = 1 when any of g[0..count) is infinite or NaN; left as it was otherwise (clear it first).
template <class Dev>
void flag_nonfinite(Dev& dev, int64_t count, GlobalPtr<const float> g, GlobalPtr<int> flag) {
    dev.launch("nonfinite_flag_kernel", elementwise_launch(count), &nonfinite_flag_kernel, g, count, flag);
}

// v = momentum * v - rate * g; w += v, over `count` parameters.
template <class Dev>
void sgd_momentum(Dev& dev, int64_t count, float rate, float momentum, GlobalPtr<float> w, GlobalPtr<float> v,
                  GlobalPtr<const float> g) {
    dev.launch("sgd_momentum_kernel", elementwise_launch(count), &sgd_momentum_kernel, w, v, g, count, rate,
               momentum);
}

// [SECTION] convolution (shapes: conv_train_kernels.cuh)
//
// Each launch picks the kernel's index type here, once, on the host (train_launch.h's
// narrow_index): uint32_t when every index fits, int64_t otherwise or when `m` is IndexMath::Wide.

template <class Dev>
void conv_forward(Dev& dev, const TrainConvShape& s, GlobalPtr<const float> x, GlobalPtr<const float> w,
                  GlobalPtr<const float> b, GlobalPtr<float> y, IndexMath m = IndexMath::Auto) {
    const LaunchShape l = elementwise_launch(s.n * s.k * s.p * s.q);
    if (narrow_index(conv_largest_tensor(s), m))
        dev.launch("conv_forward_kernel", l, &conv_forward_kernel<uint32_t>, x, w, b, y, s);
    else
        dev.launch("conv_forward_kernel", l, &conv_forward_kernel<int64_t>, x, w, b, y, s);
}

template <class Dev>
void conv_backward_data(Dev& dev, const TrainConvShape& s, GlobalPtr<const float> dy, GlobalPtr<const float> w,
                        GlobalPtr<float> dx, IndexMath m = IndexMath::Auto) {
    const LaunchShape l = elementwise_launch(s.n * s.c * s.h * s.w);
    if (narrow_index(conv_largest_tensor(s), m))
        dev.launch("conv_backward_data_kernel", l, &conv_backward_data_kernel<uint32_t>, dy, w, dx, s);
    else
        dev.launch("conv_backward_data_kernel", l, &conv_backward_data_kernel<int64_t>, dy, w, dx, s);
}

// db[k] = the sum of dy over `images` and the plane, for `channels` channels (conv and dense).
template <class Dev>
void bias_gradient(Dev& dev, int64_t images, int64_t channels, int64_t plane, GlobalPtr<const float> dy,
                   GlobalPtr<float> db, IndexMath m = IndexMath::Auto) {
    const LaunchShape l = reduction_launch(channels, images * plane);
    if (narrow_index(images * channels * plane, m))
        dev.launch("bias_gradient_kernel", l, &bias_gradient_kernel<uint32_t>, dy, db, images, channels, plane);
    else
        dev.launch("bias_gradient_kernel", l, &bias_gradient_kernel<int64_t>, dy, db, images, channels, plane);
}

// The filters' gradient and the bias gradient.
template <class Dev>
void conv_backward_weights(Dev& dev, const TrainConvShape& s, GlobalPtr<const float> x, GlobalPtr<const float> dy,
                           GlobalPtr<float> dw, GlobalPtr<float> db, IndexMath m = IndexMath::Auto) {
    const LaunchShape l = reduction_launch(s.k * s.c * s.r * s.r, s.n * s.p * s.q);
    if (narrow_index(conv_largest_tensor(s), m))
        dev.launch("conv_backward_weights_kernel", l, &conv_backward_weights_kernel<uint32_t>, x, dy, dw, s);
    else
        dev.launch("conv_backward_weights_kernel", l, &conv_backward_weights_kernel<int64_t>, x, dy, dw, s);
    bias_gradient(dev, s.n, s.k, s.p * s.q, dy, db, m);
}

// [SECTION] ReLU and 2x2 max pooling

template <class Dev>
void relu_forward(Dev& dev, int64_t count, GlobalPtr<const float> x, GlobalPtr<float> y) {
    dev.launch("relu_forward_kernel", elementwise_launch(count), &relu_forward_kernel, x, y, count);
}

template <class Dev>
void relu_backward(Dev& dev, int64_t count, GlobalPtr<const float> y, GlobalPtr<const float> dy, GlobalPtr<float> dx) {
    dev.launch("relu_backward_kernel", elementwise_launch(count), &relu_backward_kernel, y, dy, dx, count);
}

// y and argmax hold planes x (h / 2) x (w / 2): the maxima and which of each window's four won,
// which maxpool_backward reads.
template <class Dev>
void maxpool_forward(Dev& dev, int64_t planes, int64_t h, int64_t w, GlobalPtr<const float> x, GlobalPtr<float> y,
                     GlobalPtr<uint8_t> argmax, IndexMath m = IndexMath::Auto) {
    const LaunchShape l = elementwise_launch(planes * (h / 2) * (w / 2));
    if (narrow_index(planes * h * w, m))
        dev.launch("maxpool_forward_kernel", l, &maxpool_forward_kernel<uint32_t>, x, y, argmax, planes, h, w);
    else
        dev.launch("maxpool_forward_kernel", l, &maxpool_forward_kernel<int64_t>, x, y, argmax, planes, h, w);
}

template <class Dev>
void maxpool_backward(Dev& dev, int64_t planes, int64_t h, int64_t w, GlobalPtr<const uint8_t> argmax,
                      GlobalPtr<const float> dy, GlobalPtr<float> dx, IndexMath m = IndexMath::Auto) {
    const LaunchShape l = elementwise_launch(planes * h * w);
    if (narrow_index(planes * h * w, m))
        dev.launch("maxpool_backward_kernel", l, &maxpool_backward_kernel<uint32_t>, argmax, dy, dx, planes, h, w);
    else
        dev.launch("maxpool_backward_kernel", l, &maxpool_backward_kernel<int64_t>, argmax, dy, dx, planes, h, w);
}

// [SECTION] dense: x is n x in, W out x in (row-major), y n x out; the strides are explained in
// matmul_kernel.cuh.

template <class Dev>
void dense_forward(Dev& dev, int64_t n, int64_t in, int64_t out, GlobalPtr<const float> x, GlobalPtr<const float> w,
                   GlobalPtr<const float> b, GlobalPtr<float> y) {
    const MatmulShape s{n, out, in, in, 1, 1, in};
    dev.launch("matmul_tiled_kernel", matmul_launch(s.rows, s.cols), &matmul_tiled_kernel, x, w, b, y, s, 1);
}

template <class Dev>
void dense_backward_data(Dev& dev, int64_t n, int64_t in, int64_t out, GlobalPtr<const float> dy,
                         GlobalPtr<const float> w, GlobalPtr<float> dx) {
    const MatmulShape s{n, in, out, out, 1, in, 1};
    dev.launch("matmul_tiled_kernel", matmul_launch(s.rows, s.cols), &matmul_tiled_kernel, dy, w,
               GlobalPtr<const float>{}, dx, s, 0);
}

template <class Dev>
void dense_backward_weights(Dev& dev, int64_t n, int64_t in, int64_t out, GlobalPtr<const float> x,
                            GlobalPtr<const float> dy, GlobalPtr<float> dw, GlobalPtr<float> db) {
    const MatmulShape s{out, in, n, 1, out, in, 1};
    dev.launch("matmul_tiled_kernel", matmul_launch(s.rows, s.cols), &matmul_tiled_kernel, dy, x,
               GlobalPtr<const float>{}, dw, s, 0);
    bias_gradient(dev, n, out, int64_t{1}, dy, db);
}

}  // namespace gpulab::kern::layers
