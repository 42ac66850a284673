// See cudnn_train_plan.h. Plain C++, built in every configuration (no CUDA or cuDNN headers).
#include "cudnn_train_plan.h"

#include <algorithm>
#include <stdexcept>
#include <climits>
#include <cmath>
#include <sstream>

#include "io/image_io.h"

namespace gpulab::cuda::train_plan {

namespace {

using train::Layer;
using train::LayerKind;
using train::ModelDesc;

// The most elements any one tensor of a layer holds per image (activations, not weights: those do
// not grow with the batch).
std::int64_t largest_per_image(const ModelDesc& model) {
    std::int64_t m = model.input.size();
    for (const Layer& l : model.layers) m = std::max({m, l.in.size(), l.out.size()});
    return m;
}

Dims4 nchw(std::int64_t n, const train::Shape3& s) {
    return {static_cast<int>(n), static_cast<int>(s.c), static_cast<int>(s.h), static_cast<int>(s.w)};
}

}  // namespace

std::int64_t max_batch_for_int_strides(const ModelDesc& model) {
    return static_cast<std::int64_t>(INT_MAX) / std::max<std::int64_t>(1, largest_per_image(model));
}

std::vector<LayerDescs> describe_layers(const ModelDesc& model, std::int64_t n) {
    if (n < 1) throw core::InputError("the batch must hold at least 1 image");
    const std::int64_t limit = max_batch_for_int_strides(model);
    if (n > limit)
        throw core::InputError("a batch of " + std::to_string(n) + " images is too large for cuDNN's tensor " +
                               "descriptors (int sizes): the largest batch for this model is " + std::to_string(limit));
    std::vector<LayerDescs> out;
    for (const Layer& l : model.layers) {
        LayerDescs d;
        d.kind = l.kind;
        // A dense layer flattens whatever came before into N,features,1,1 (the same memory).
        const bool dense = l.kind == LayerKind::Dense;
        d.x = dense ? Dims4{static_cast<int>(n), static_cast<int>(l.in.size()), 1, 1} : nchw(n, l.in);
        d.y = nchw(n, l.out);
        if (l.kind == LayerKind::Conv) {
            d.filter = {static_cast<int>(l.out.c), static_cast<int>(l.in.c), static_cast<int>(l.kernel),
                        static_cast<int>(l.kernel)};
        } else if (dense) {
            d.filter = {static_cast<int>(l.out.c), static_cast<int>(l.in.size()), 1, 1};
        }
        if (l.has_params()) d.bias = {1, static_cast<int>(l.out.c), 1, 1};
        out.push_back(d);
    }
    return out;
}

int choose_algorithm(const std::vector<AlgoResult>& results, std::size_t room, bool allow_tf32) {
    // FP32 keeps its rule as it was (an FP16-converting result is not excluded there: Find with an
    // FMA descriptor has not been seen to return one); TF32 never takes one.
    const auto fits = [room, allow_tf32](const AlgoResult& r) {
        return r.ok && r.workspace <= room && !(allow_tf32 && r.converts);
    };
    if (!allow_tf32)
        for (std::size_t i = 0; i < results.size(); ++i)
            if (fits(results[i]) && results[i].fma_math) return static_cast<int>(i);
    for (std::size_t i = 0; i < results.size(); ++i)
        if (fits(results[i])) return static_cast<int>(i);
    return -1;
}

int choose_fp16_algorithm(const std::vector<AlgoResult>& results, std::size_t room) {
    const auto fits = [room](const AlgoResult& r) { return r.ok && r.workspace <= room; };
    for (std::size_t i = 0; i < results.size(); ++i)
        if (fits(results[i]) && results[i].converts) return static_cast<int>(i);
    for (std::size_t i = 0; i < results.size(); ++i)
        if (fits(results[i])) return static_cast<int>(i);
    return -1;
}

void check_cudnn_precision(train::ComputePrecision p) {
    if (p == train::ComputePrecision::Fp32 || p == train::ComputePrecision::Tf32 ||
        p == train::ComputePrecision::Fp16Mixed)
        return;
    throw core::InputError(std::string("cudnn multiplies in FP32, TF32 or FP16 (mixed) only: ") +
                           train::precision_short_label(p) + " (" + train::precision_label(p) +
                           ") runs on cpu-scalar and cpu-parallel (modelled by rounding)");
}

std::string fp16_precision_text(int cc_major, int cc_minor, int directions, int fp16_directions,
                                const train::LossScaler& scaler) {
    if (cc_major < 0)
        return "FP16 mixed asked for (cuDNN CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, cuBLAS FP32 with FP16 compute, FP32 "
               "master weights, " + std::string(scaler.dynamic ? "dynamic loss scaling from " : "a fixed loss scale of ") +
               train::loss_scale_text(scaler.scale) +
               "); whether the GPU has FP16 tensor cores (compute capability 7.0 or newer) is known at setup";
    const std::string cc = std::to_string(cc_major) + "." + std::to_string(cc_minor);
    if (!has_fp16_tensor_cores(cc_major))
        return "FP32 (FMA math: no FP16): FP16 mixed was asked for, but compute capability " + cc +
               " has no FP16 tensor cores (7.0 or newer), so cuDNN and cuBLAS run FP32, without loss scaling";
    const std::string convs =
        directions == 0 ? "no convolutions"
                        : "cuDNN down-converts FP32 data to FP16 in " + std::to_string(fp16_directions) + " of " +
                              std::to_string(directions) +
                              " convolution directions (where Find timed an algorithm that converts; the rest run "
                              "the fastest it timed, FP32 or TF32)";
    return "FP16 permitted on compute capability " + cc + "'s tensor cores (the libraries choose per call): " + convs +
           "; cuBLAS FP32 data with FP16 compute (CUBLAS_COMPUTE_32F_FAST_16F, which may down-convert to FP16 or "
           "TF32) for the dense layers; FP32 sums and master weights, " + train::describe_loss_scale(scaler) +
           " (an update is skipped when a scaled gradient overflows)";
}

std::string tf32_precision_text(int cc_major, int cc_minor, int directions, int tf32_directions) {
    if (cc_major < 0)
        return "TF32 asked for (cuDNN default math, cuBLAS TF32 tensor-op math); whether the GPU has TF32 tensor "
               "cores (compute capability 8.0 or newer) is known at setup";
    const std::string cc = std::to_string(cc_major) + "." + std::to_string(cc_minor);
    if (!has_tf32_tensor_cores(cc_major))
        return "FP32 (FMA math: no TF32): TF32 was asked for, but compute capability " + cc +
               " has no TF32 tensor cores (8.0 or newer), so cuDNN and cuBLAS run FP32";
    std::string convs = directions == 0 ? "no convolutions"
                                        : "cuDNN in default math (TF32 permitted) in " + std::to_string(tf32_directions) +
                                              " of " + std::to_string(directions) +
                                              " convolution directions, where Find timed that fastest, FMA (FP32) in "
                                              "the rest";
    return "TF32 permitted on compute capability " + cc +
           "'s tensor cores (the libraries choose per call): cuBLAS sgemm in TF32 tensor-op math for the dense "
           "layers; " + convs + "; FP32 sums and weights";
}

Gemm dense_forward(std::int64_t n, std::int64_t in, std::int64_t out) {
    const int N = static_cast<int>(n), I = static_cast<int>(in), O = static_cast<int>(out);
    return {true, false, O, N, I, I, I, O};
}

Gemm dense_backward_data(std::int64_t n, std::int64_t in, std::int64_t out) {
    const int N = static_cast<int>(n), I = static_cast<int>(in), O = static_cast<int>(out);
    return {false, false, I, N, O, I, O, I};
}

Gemm dense_backward_weights(std::int64_t n, std::int64_t in, std::int64_t out) {
    const int N = static_cast<int>(n), I = static_cast<int>(in), O = static_cast<int>(out);
    return {false, true, I, O, N, I, O, I};
}

void reference_sgemm(const Gemm& g, const float* a, const float* b, float* c) {
    // op(A)(i, p) and op(B)(p, j) read from column-major storage with the leading dimensions.
    const auto at = [&](int i, int p) { return g.trans_a ? a[p + i * g.lda] : a[i + p * g.lda]; };
    const auto bt = [&](int p, int j) { return g.trans_b ? b[j + p * g.ldb] : b[p + j * g.ldb]; };
    for (int j = 0; j < g.n; ++j)
        for (int i = 0; i < g.m; ++i) {
            double acc = 0.0;
            for (int p = 0; p < g.k; ++p) acc += static_cast<double>(at(i, p)) * bt(p, j);
            c[i + j * g.ldc] = static_cast<float>(acc);
        }
}

DeviceParams device_params(const train::ModelDesc& model) {
    DeviceParams d;
    const auto align = [](std::int64_t x) {
        return (x + DeviceParams::kAlignFloats - 1) / DeviceParams::kAlignFloats * DeviceParams::kAlignFloats;
    };
    for (const train::Layer& l : model.layers) {
        if (!l.has_params()) continue;
        for (const auto& [host, count] : {std::pair{l.weight_offset, l.weight_count}, std::pair{l.bias_offset, l.bias_count}}) {
            d.count = align(d.count);
            d.slices.push_back({host, d.count, count});
            d.count += count;
        }
    }
    d.count = align(d.count);
    return d;
}

std::int64_t DeviceParams::device_offset(std::int64_t host_offset) const {
    for (const Slice& s : slices)
        if (s.host == host_offset) return s.device;
    throw std::logic_error("no parameter block starts at " + std::to_string(host_offset));
}

std::vector<float> DeviceParams::scatter(const std::vector<float>& packed) const {
    std::vector<float> out(static_cast<std::size_t>(count), 0.0f);
    for (const Slice& s : slices)
        std::copy_n(packed.begin() + s.host, s.count, out.begin() + s.device);
    return out;
}

std::vector<float> DeviceParams::gather(const std::vector<float>& padded) const {
    std::int64_t packed = 0;
    for (const Slice& s : slices) packed = std::max(packed, s.host + s.count);
    std::vector<float> out(static_cast<std::size_t>(packed), 0.0f);
    for (const Slice& s : slices)
        std::copy_n(padded.begin() + s.device, s.count, out.begin() + s.host);
    return out;
}

}  // namespace gpulab::cuda::train_plan
