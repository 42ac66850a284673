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

#include "train/loss_kernels.cuh"
#include "train/sgd_kernel.cuh"
#include "train/train_launch.h"

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

// v = momentum * v - rate * g; w += v, over `count` parameters.
template <class Dev>
void sgd_momentum(Dev& dev, int64_t count, float rate, float momentum, GlobalPtr<float> w, GlobalPtr<float> v,
                  GlobalPtr<const float> g) {
    dev.launch("sgd_momentum_kernel", elementwise_launch(count), &sgd_momentum_kernel, w, v, g, count, rate,
               momentum);
}

}  // namespace gpulab::kern::layers
