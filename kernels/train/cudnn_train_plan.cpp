// See cudnn_train_plan.h. Plain C++, built in every configuration (no CUDA or cuDNN headers).
#include "cudnn_train_plan.h"

#include <algorithm>
#include <stdexcept>
#include <climits>

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

int choose_algorithm(const std::vector<AlgoResult>& results, std::size_t room) {
    const auto fits = [room](const AlgoResult& r) { return r.ok && r.workspace <= room; };
    for (std::size_t i = 0; i < results.size(); ++i)
        if (fits(results[i]) && results[i].fma_math) return static_cast<int>(i);
    for (std::size_t i = 0; i < results.size(); ++i)
        if (fits(results[i])) return static_cast<int>(i);
    return -1;
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
