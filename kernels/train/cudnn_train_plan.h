// What the cudnn training engine (cudnn_train_engine.cu) tells cuDNN and cuBLAS, worked out in
// plain C++ so it can be tested on a machine without a GPU: the 4-d tensor and filter shapes of
// every layer for a batch, the cuBLAS arguments of the dense layers, and which of the algorithms a
// cuDNN Find call measured to keep.
//
// Conventions (the same as core/train/model.h): tensors N,C,H,W packed, convolution weights K,C,R,S,
// dense weights (out, in) row-major, dense activations (n, features) row-major, which is the same
// memory as an N,C,1,1 tensor, so cuDNN's bias and activation calls serve dense layers too.
//
// Verified by tests/test_cudnn_train_plan.cpp (no GPU needed): shapes from the default model, the
// int limit refused with a sentence, the algorithm choice, and the gemm arguments run through a
// column-major reference sgemm against cpu-scalar's dense layers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "train/compute_precision.h"
#include "train/loss_scaling.h"
#include "train/model.h"

namespace gpulab::cuda::train_plan {

// cuDNN's legacy descriptors take int dimensions and strides.
struct Dims4 {
    int n = 0, c = 0, h = 0, w = 0;
    bool operator==(const Dims4&) const = default;
};

// One model layer as cuDNN sees it for a batch of n images.
struct LayerDescs {
    train::LayerKind kind = train::LayerKind::Relu;
    Dims4 x;       // input, N,C,H,W (a dense layer's input as N,features,1,1)
    Dims4 y;       // output
    Dims4 filter;  // conv: K,C,R,S; dense: out,in,1,1; else zero
    Dims4 bias;    // conv and dense: 1,K,1,1; else zero
};

// Every layer's descriptors for a batch of n. Throws core::InputError with one sentence when any
// tensor would hold more than INT_MAX elements (cuDNN's int strides), naming the largest batch
// that fits.
std::vector<LayerDescs> describe_layers(const train::ModelDesc& model, std::int64_t n);

// The largest batch whose every tensor stays within cuDNN's int dimensions and strides.
std::int64_t max_batch_for_int_strides(const train::ModelDesc& model);

// The parameters as the cudnn engine keeps them on the device: each layer's weights and biases
// start on a 256-byte boundary (64 floats), as cudaMalloc's own pointers do. cuDNN's Find times
// algorithms on buffers of its own, which are aligned; an algorithm that needs aligned pointers
// (vectorised loads) could then refuse or fault on `params + offset` for a model whose layer sizes
// are not multiples of 4 (issue 30, item 2). The host's flat vector (core/train/model.h) keeps its
// packed layout; upload scatters into this one, download gathers back. Padding stays 0: its
// gradient is 0, so SGD never moves it.
struct DeviceParams {
    static constexpr std::int64_t kAlignFloats = 64;
    std::int64_t count = 0;  // floats on the device, padding included
    // One slice per weight or bias block, in the model's order.
    struct Slice {
        std::int64_t host = 0, device = 0, count = 0;
    };
    std::vector<Slice> slices;
    // The device offset of the block that starts at `host_offset` in the packed vector.
    std::int64_t device_offset(std::int64_t host_offset) const;
    std::vector<float> scatter(const std::vector<float>& packed) const;  // host layout -> device layout
    std::vector<float> gather(const std::vector<float>& padded) const;   // device layout -> host layout
};
DeviceParams device_params(const train::ModelDesc& model);

// What a cuDNN Find call reports for one algorithm, without cuDNN's types (the three Find calls
// return three perf structs with these same fields).
struct AlgoResult {
    int algo = 0;
    bool ok = false;          // status == CUDNN_STATUS_SUCCESS
    bool fma_math = false;    // mathType == CUDNN_FMA_MATH: plain FP32, no TF32
    bool deterministic = false;
    std::size_t workspace = 0;  // bytes
    float time_ms = 0.0f;
    // mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: cuDNN may convert FP32 data down to FP16,
    // which no precision of the engine asks for. (Last, so the older fields keep their places.)
    bool converts = false;
};

// The index of the algorithm to use, or -1. Find returns results fastest first; we keep the first
// that succeeded, runs in FP32 FMA math (so results match cpu-scalar within an FP32 tolerance) and
// whose workspace fits in `room` bytes; failing FMA, the first that succeeded and fits.
// With allow_tf32 (the engine asked for TF32): the first that succeeded, fits and does not convert
// to FP16, whatever its math type: the fastest, TF32 or FMA, as a framework with TF32 on would run.
int choose_algorithm(const std::vector<AlgoResult>& results, std::size_t room, bool allow_tf32 = false);

// FP16 mixed (the descriptor in CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION): the first result that
// succeeded, fits and converts FP32 data to FP16 (the fastest such, since Find sorts fastest first);
// failing that, the first that succeeded and fits, whatever its math: FP16 is permitted, not forced,
// and a direction where Find timed no converting algorithm runs the fastest it did time.
int choose_fp16_algorithm(const std::vector<AlgoResult>& results, std::size_t room);

// TF32 products need tensor cores that take TF32: compute capability 8.0 (Ampere) or newer.
inline bool has_tf32_tensor_cores(int cc_major) { return cc_major >= 8; }

// FP16 products with FP32 sums need the tensor cores of compute capability 7.0 (Volta) or newer.
inline bool has_fp16_tensor_cores(int cc_major) { return cc_major >= 7; }

// The precisions the cudnn engine runs: FP32 (the default, FMA math), TF32 and FP16 mixed. Throws
// core::InputError with one sentence for the BF16 ones.
void check_cudnn_precision(train::ComputePrecision p);

// What the cudnn engine's precision() says when it was asked for TF32 (FP32 has its own two
// sentences in the engine). cc_major < 0: the device is not known yet (no setup, or no device).
// directions: convolution directions set up (forward, backward-filter, backward-data per conv
// layer); tf32_directions: of those, the ones whose chosen algorithm's math type is not FMA.
// Starts with "TF32 " where the device can do it and "FP32 " where it cannot, since the race's
// precision column shows the first word.
std::string tf32_precision_text(int cc_major, int cc_minor, int directions, int tf32_directions);

// What the cudnn engine's precision() says when it was asked for FP16 mixed, with the loss scaler's
// state now (scale, updates skipped so far). cc_major < 0: the device is not known yet.
// fp16_directions: of the convolution directions set up, the ones whose chosen algorithm converts
// FP32 data to FP16 (math type CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION). Starts with "FP16 " where
// the device can do it and "FP32 " where it cannot (then no loss scaling runs either).
// The scaler's part is core's describe_loss_scale, the words the CPU engines use.
std::string fp16_precision_text(int cc_major, int cc_minor, int directions, int fp16_directions,
                                const train::LossScaler& scaler);

// One cublasSgemm call, column-major as BLAS defines it: C (m x n, ldc) = alpha * op(A) * op(B) +
// beta * C, op(A) m x k, op(B) k x n.
struct Gemm {
    bool trans_a = false, trans_b = false;
    int m = 0, n = 0, k = 0;
    int lda = 0, ldb = 0, ldc = 0;
    bool operator==(const Gemm&) const = default;
};

// The dense layer y (n x out) = x (n x in) * W^T with everything row-major, as column-major gemms.
// A row-major r x c matrix is the column-major c x r matrix with leading dimension c, its transpose.
//   forward:          C = y,  A = W,  B = x     (y^T = W x^T)
//   backward_data:    C = dx, A = W,  B = dy    (dx^T = W^T dy^T)
//   backward_weights: C = dW, A = x,  B = dy    (dW^T = x^T dy)
Gemm dense_forward(std::int64_t n, std::int64_t in, std::int64_t out);
Gemm dense_backward_data(std::int64_t n, std::int64_t in, std::int64_t out);
Gemm dense_backward_weights(std::int64_t n, std::int64_t in, std::int64_t out);

// The BLAS definition of sgemm on the host (column-major, alpha = 1, beta = 0): the tests run the
// Gemm arguments above through it against cpu-scalar's dense layers.
void reference_sgemm(const Gemm& g, const float* a, const float* b, float* c);

}  // namespace gpulab::cuda::train_plan
