// Softmax cross-entropy, the training loss, as two CUDA kernels: the forward (each image's loss and
// whether its largest logit is the label) and the gradient of the batch's mean loss with respect to
// the logits, (softmax - one_hot) / n. One source, two compilers, like every kernel header here:
// included after cuda_device_env.cuh by nvcc, after sim/sim_device_env.h by the host compiler for
// the SIMT simulator. No runtime-API calls; the launch configuration is train_launch.h's
// per_image_launch, which both paths call.
//
// Thread mapping: one thread per image (grid-stride loop over n, 64-bit indices). A model has 10
// classes, so a thread reads 10 logits: a whole batch is a few thousand floats, and a per-image
// thread keeps the arithmetic in the same order as cpu-scalar's loop. (A warp per image with
// shuffles would pay off only for thousands of classes.)
//
// Numerics: the largest logit is subtracted before expf, so nothing overflows and softmax is
// unchanged. The sum is in float here (cpu-scalar uses double): with 10 terms each <= 1 that costs
// a few ulp. The loss stays per image, in float; the caller sums the batch on the host in double,
// so the mean does not depend on a reduction order inside the GPU.
//
// Labels are bytes (the IDX files' own type) and must be < classes: the engine checks them on the
// host before they are copied in, so these kernels never index outside a row.
//
// Verified by tests/test_gpu_train.cpp: against cpu-scalar's softmax_cross_entropy on the SIMT
// simulator (every machine) and on a GPU where there is one.
#pragma once

#include <cmath>
#include <cstdint>

namespace gpulab::kern {

// The kernels are `static` (internal linkage): every translation unit that includes this header
// (the simulator's layer table and engine, the cuda-kernel and cudnn engines) compiles its own
// copy, so several may include it without clashing at link time.

// loss[m] = log(sum_c exp(l[c] - top)) - (l[label] - top); correct[m] = 1 when the first largest
// logit (lowest index on ties, as cpu-scalar) is the label, else 0.
static __global__ void softmax_xent_forward_kernel(GlobalPtr<const float> logits, GlobalPtr<const uint8_t> labels,
                                            GlobalPtr<float> loss, GlobalPtr<int> correct, int64_t n,
                                            int classes) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t m = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; m < n; m += stride) {
        const GlobalPtr<const float> row = logits + m * classes;
        int best = 0;
        float top = row[0];
        for (int c = 1; c < classes; ++c) {
            const float v = row[c];
            if (v > top) {
                top = v;
                best = c;
            }
        }
        float sum = 0.0f;
        for (int c = 0; c < classes; ++c) sum += expf(row[c] - top);
        const int label = labels[m];
        loss[m] = logf(sum) - (row[label] - top);
        correct[m] = best == label ? 1 : 0;
    }
}

// dlogits[m][c] = (softmax(l)[c] - (c == label ? 1 : 0)) / n: the gradient of the MEAN loss, so
// every later gradient is already per batch and the update needs no division.
static __global__ void softmax_xent_backward_kernel(GlobalPtr<const float> logits, GlobalPtr<const uint8_t> labels,
                                             GlobalPtr<float> dlogits, int64_t n, int classes) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const float inv_n = 1.0f / static_cast<float>(n);
    for (int64_t m = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; m < n; m += stride) {
        const GlobalPtr<const float> row = logits + m * classes;
        float top = row[0];
        for (int c = 1; c < classes; ++c) top = fmaxf(top, row[c]);
        float sum = 0.0f;
        for (int c = 0; c < classes; ++c) sum += expf(row[c] - top);
        const int label = labels[m];
        for (int c = 0; c < classes; ++c) {
            const float p = expf(row[c] - top) / sum;
            dlogits[m * classes + c] = (p - (c == label ? 1.0f : 0.0f)) * inv_n;
        }
    }
}

}  // namespace gpulab::kern
