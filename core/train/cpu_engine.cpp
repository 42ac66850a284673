// The CPU training engines: one class runs a ModelDesc layer by layer with a set of layer
// functions, cpu-scalar's (the reference loops) or cpu-parallel's (threads + SIMD); see
// cpu_layers.h. It keeps every layer's output of the last forward pass for the backward pass, the
// gradients, and the momentum. Set to BF16 or TF32 (compute_precision.h), it rounds each
// convolution's and dense layer's inputs, weights and incoming gradient to that format where they
// enter a product, keeps the sums FP32, and updates FP32 master weights (BF16 mixed, TF32) or BF16
// weights (BF16 pure).
// Verified by tests/test_train_engines.cpp and tests/test_mixed_precision_train.cpp.
#include <algorithm>
#include <cstring>
#include <utility>

#include "measure/clock.h"
#include "io/image_io.h"
#include "runtime/cancel.h"
#include "runtime/memory.h"
#include "runtime/thread_pool.h"
#include "cpu_layers.h"
#include "compute_precision.h"
#include "host_train_engine.h"
#include "loss_scaling.h"
#include "onednn_train_engine.h"
#include "backends/simd/train_gemm.h"

namespace gpulab::train {

namespace {

using core::InputError;

class CpuTrainEngine final : public HostTrainEngine {
public:
    CpuTrainEngine(const CpuLayerOps& ops, std::string_view description, std::string implementation,
                   bool slice_batch)
        : ops_(ops), description_(description), implementation_(std::move(implementation)), slice_batch_(slice_batch) {}

    std::string_view name() const override { return ops_.name; }
    std::string_view description() const override { return description_; }
    std::string implementation() const override { return implementation_; }
    std::string precision() const override {
        if (precision_ != ComputePrecision::Fp16Mixed) return precision_label(precision_);
        return std::string(precision_label(precision_)) + ": " + describe_loss_scale(scaler_);
    }
    void set_compute_precision(ComputePrecision p) override { precision_ = p; }
    void set_loss_scale(float fixed_scale) override { fixed_loss_scale_ = check_loss_scale(fixed_scale); }
    UpdateCounts update_counts() const override { return counts_; }
    void keep_activation_gradients(bool on) override { keep_activation_gradients_ = on; }
    // FP16 mixed: a worker whose own pass overflowed sends infinities, so the sum has them too and
    // every worker skips that update alike (their loss scales stay equal).
    void set_gradients(const std::vector<float>& gradients) override {
        HostTrainEngine::set_gradients(gradients);
        grads_finite_ = all_finite(grads_.data(), static_cast<std::int64_t>(grads_.size()));
    }
    std::vector<float> activation_gradients() const override {
        std::vector<float> all;
        for (const std::vector<float>& layer : activation_gradients_) all.insert(all.end(), layer.begin(), layer.end());
        return all;
    }

    void setup(const ModelDesc& model, const std::vector<float>& params, std::int64_t max_batch) override {
        setup_host_buffers(model, params, max_batch);
        dlogits_.assign(static_cast<std::size_t>(max_batch * model.classes), 0.0f);
        counts_ = {};
        scaler_ = {};
        if (fixed_loss_scale_ > 0.0f) {
            scaler_.scale = fixed_loss_scale_;
            scaler_.dynamic = false;
        }
        // BF16 weights start as the BF16 rounding of the FP32 initial ones.
        if (precision_ == ComputePrecision::Bf16Pure) round_bf16_in_place(params_.data(), static_cast<std::int64_t>(params_.size()));
        narrow_params_.clear();
    }

    void forward(const float* images, std::int64_t n) override {
        if (n < 1 || n > max_batch_)
            throw InputError("a batch of " + std::to_string(n) + " images does not fit the engine's " +
                             std::to_string(max_batch_));
        n_ = n;
        std::memcpy(input_.data(), images, static_cast<std::size_t>(n * model_.input.size()) * sizeof(float));
        if (has_narrow_copy()) {
            // The BF16 (TF32) copy of the FP32 master weights this batch multiplies with. BF16
            // weights (pure) need none: they are BF16 already (rounded at setup and by every update).
            narrow_params_ = params_;
            round_product_inputs_in_place(precision_, narrow_params_.data(), static_cast<std::int64_t>(narrow_params_.size()));
        }
        run_slices([&](const Slice& sl, std::vector<LayerTime>& times) {
            for (std::size_t i = 0; i < model_.layers.size(); ++i) {
                // A layer of cpu-scalar can take a quarter of a second: Stop or leaving the step
                // ends the batch here rather than after it (issue 25).
                if (core::cancel_requested()) throw core::Cancelled();
                const Layer& l = model_.layers[i];
                float* x = layer_input(i) + sl.first * l.in.size();
                // The activations a product reads are stored in BF16 (TF32): rounded in place, so
                // the backward pass reads the same numbers (ReLU's test y > 0 and pooling's maximum
                // are unchanged by rounding, except values below BF16's smallest, which become 0).
                if (narrow() && l.has_params()) round_product_inputs_in_place(precision_, x, sl.n * l.in.size());
                float* y = outputs_[i].data() + sl.first * l.out.size();
                const std::int64_t t0 = core::now_ns();
                switch (l.kind) {
                    case LayerKind::Conv: ops_.conv_forward(conv_shape(l, sl.n), x, weights(l), biases(l), y); break;
                    case LayerKind::Relu: ops_.relu_forward(sl.n * l.out.size(), x, y); break;
                    case LayerKind::MaxPool: ops_.maxpool_forward(sl.n * l.in.c, l.in.h, l.in.w, x, y); break;
                    case LayerKind::Dense:
                        ops_.dense_forward(sl.n, l.in.size(), l.out.c, x, weights(l), biases(l), y);
                        break;
                }
                times[i].forward_ns += core::now_ns() - t0;
            }
        }, /*forward=*/true);
    }

    BatchResult backward(const std::uint8_t* labels) override {
        if (n_ == 0) throw InputError("backward needs a forward pass first");
        for (std::int64_t m = 0; m < n_; ++m)
            if (labels[m] >= model_.classes)
                throw InputError("label " + std::to_string(labels[m]) + " is not one of the model's " +
                                 std::to_string(model_.classes) + " classes");
        // The loss of the whole batch first: its gradient is divided by the whole batch's size.
        const BatchResult result =
            ops_.softmax_cross_entropy(n_, model_.classes, outputs_.back().data(), labels, dlogits_.data());
        // FP16 mixed: the loss gradient times the loss scale, so that the gradients below it stay
        // above FP16's smallest numbers while they are rounded to FP16; step() divides it out.
        if (precision_ == ComputePrecision::Fp16Mixed)
            scale_in_place(dlogits_.data(), n_ * model_.classes, scaler_.scale);
        const std::int64_t stride = model_.max_activation();
        activation_gradients_.assign(keep_activation_gradients_ ? model_.layers.size() : 0, {});
        for (std::size_t i = 0; i < activation_gradients_.size(); ++i)
            if (model_.layers[i].has_params())
                activation_gradients_[i].resize(static_cast<std::size_t>(n_ * model_.layers[i].out.size()));
        run_slices([&](const Slice& sl, std::vector<LayerTime>& times) {
            // Each slice keeps its gradients in its own part of the two ping-pong buffers (room for
            // its images at the model's largest activation), so slices at different layers never
            // overlap; its weight gradients go to its own buffer.
            float* a = grad_out_.data() + sl.first * stride;
            float* b = grad_in_.data() + sl.first * stride;
            float* dy = dlogits_.data() + sl.first * model_.classes;
            float* dx = b;
            float* g = sl.grads;
            for (std::size_t i = model_.layers.size(); i-- > 0;) {
                if (core::cancel_requested()) throw core::Cancelled();
                const Layer& l = model_.layers[i];
                const float* x = layer_input(i) + sl.first * l.in.size();
                // Kept as it arrives, before any rounding: each slice fills its own pictures' part.
                if (i < activation_gradients_.size() && !activation_gradients_[i].empty()) {
                    const float scale = precision_ == ComputePrecision::Fp16Mixed ? 1.0f / scaler_.scale : 1.0f;
                    float* kept = activation_gradients_[i].data() + sl.first * l.out.size();
                    for (std::int64_t j = 0; j < sl.n * l.out.size(); ++j) kept[j] = dy[j] * scale;
                }
                // The gradient arriving from above enters two products (weights and input gradient):
                // BF16 (TF32), like the activations. It is not read again after this layer.
                if (narrow() && l.has_params()) round_product_inputs_in_place(precision_, dy, sl.n * l.out.size());
                const std::int64_t t0 = core::now_ns();
                switch (l.kind) {
                    case LayerKind::Conv:
                        ops_.conv_backward_weights(conv_shape(l, sl.n), x, dy, g + l.weight_offset, g + l.bias_offset);
                        if (l.needs_input_gradient) ops_.conv_backward_data(conv_shape(l, sl.n), dy, weights(l), dx);
                        break;
                    case LayerKind::Relu:
                        ops_.relu_backward(sl.n * l.out.size(), outputs_[i].data() + sl.first * l.out.size(), dy, dx);
                        break;
                    case LayerKind::MaxPool: ops_.maxpool_backward(sl.n * l.in.c, l.in.h, l.in.w, x, dy, dx); break;
                    case LayerKind::Dense:
                        ops_.dense_backward_weights(sl.n, l.in.size(), l.out.c, x, dy, g + l.weight_offset,
                                                    g + l.bias_offset);
                        if (l.needs_input_gradient) ops_.dense_backward_data(sl.n, l.in.size(), l.out.c, dy, weights(l), dx);
                        break;
                }
                times[i].backward_ns += core::now_ns() - t0;
                // This layer's input gradient is the upstream gradient of the one before.
                dy = dx;
                dx = dx == b ? a : b;
            }
        }, /*forward=*/false);
        if (precision_ == ComputePrecision::Fp16Mixed) {
            // A scaled gradient that overflowed FP16 became infinity (or NaN) and reached the weight
            // gradients: step() will skip this batch. Otherwise the scale is divided out here, so
            // gradients() reads the true gradients, as in every other precision.
            const auto count = static_cast<std::int64_t>(grads_.size());
            grads_finite_ = all_finite(grads_.data(), count);
            if (grads_finite_) scale_in_place(grads_.data(), count, 1.0f / scaler_.scale);
        }
        return result;
    }

    void step(const Sgd& sgd) override {
        // FP16 mixed: a batch whose scaled gradients overflowed is not applied (the scaler halves).
        if (precision_ == ComputePrecision::Fp16Mixed && !scaler_.after_backward(grads_finite_)) return;
        if (narrow())
            sgd_step_counted(precision_, static_cast<std::int64_t>(params_.size()), sgd, params_.data(), velocity_.data(),
                             grads_.data(), counts_);
        else
            ops_.sgd_momentum(static_cast<std::int64_t>(params_.size()), sgd, params_.data(), velocity_.data(),
                              grads_.data());
    }


private:
    struct Slice {
        std::int64_t first = 0, n = 0;  // images [first, first + n) of the batch
        float* grads = nullptr;          // where this slice's weight gradients go
    };

    // Runs fn on slices of the batch. cpu-scalar: one slice, the whole batch, on this thread.
    // cpu-parallel: the batch cut into slices that the pool's threads take one at a time, each slice
    // going through every layer on one thread (its activations stay in that core's cache, and the
    // threads meet once per pass instead of once per layer); the layer functions' own threading
    // then runs inline. Weight gradients are summed over the slices in slice order afterwards.
    // Layer times are summed over slices and divided by the threads: per-layer shares of the pass.
    template <class Fn>
    void run_slices(const Fn& fn, bool forward) {
        const std::int64_t slices = slice_batch_ ? std::min<std::int64_t>(n_, 4 * cpu::ThreadPool::shared().size()) : 1;
        slice_grads_.resize(static_cast<std::size_t>(slices));
        std::vector<std::vector<LayerTime>> slice_times(static_cast<std::size_t>(slices),
                                                        std::vector<LayerTime>(model_.layers.size()));
        auto one = [&](std::int64_t t) {
            Slice sl;
            sl.first = n_ * t / slices;
            sl.n = n_ * (t + 1) / slices - sl.first;
            if (slices == 1) {
                sl.grads = grads_.data();
            } else {
                slice_grads_[static_cast<std::size_t>(t)].resize(grads_.size());
                sl.grads = slice_grads_[static_cast<std::size_t>(t)].data();
            }
            fn(sl, slice_times[static_cast<std::size_t>(t)]);
        };
        if (slices == 1) {
            one(0);
        } else {
            cpu::ThreadPool::shared().parallel_for(
                slices, [&](std::int64_t b, std::int64_t e) { for (std::int64_t t = b; t < e; ++t) one(t); }, 1);
            if (!forward) {
                const auto count = static_cast<std::int64_t>(grads_.size());
                cpu::ThreadPool::shared().parallel_for(count, [&](std::int64_t b, std::int64_t e) {
                    for (std::int64_t j = b; j < e; ++j) {
                        float sum = 0.0f;
                        for (const std::vector<float>& part : slice_grads_) sum += part[static_cast<std::size_t>(j)];
                        grads_[static_cast<std::size_t>(j)] = sum;
                    }
                });
            }
        }
        const std::int64_t threads = slice_batch_ ? cpu::ThreadPool::shared().size() : 1;
        for (std::size_t i = 0; i < times_.size(); ++i) {
            std::int64_t sum = 0;
            for (const auto& st : slice_times) sum += forward ? st[i].forward_ns : st[i].backward_ns;
            (forward ? times_[i].forward_ns : times_[i].backward_ns) = sum / threads;
        }
    }

    float* layer_input(std::size_t i) { return i == 0 ? input_.data() : outputs_[i - 1].data(); }
    bool narrow() const { return precision_ != ComputePrecision::Fp32; }
    // FP32 master weights multiplied through a rounded copy: BF16 mixed and TF32.
    bool has_narrow_copy() const {
        return precision_ == ComputePrecision::Bf16Mixed || precision_ == ComputePrecision::Tf32 ||
               precision_ == ComputePrecision::Fp16Mixed;
    }
    // The weights products read: the BF16 (TF32) copy of the master weights in BF16 mixed (TF32),
    // else the weights themselves (FP32, or BF16 already). Biases are added to the FP32 sum as they are.
    const float* weights(const Layer& l) const {
        return (has_narrow_copy() ? narrow_params_ : params_).data() + l.weight_offset;
    }
    const float* biases(const Layer& l) const { return params_.data() + l.bias_offset; }
    static ConvShape conv_shape(const Layer& l, std::int64_t n) { return {n, l.in.c, l.in.h, l.in.w, l.out.c, l.kernel}; }

    const CpuLayerOps& ops_;
    std::string description_;
    std::string implementation_;
    std::vector<float> dlogits_;                // the loss's gradient, n x classes
    bool slice_batch_ = false;
    std::vector<std::vector<float>> slice_grads_;  // one weight-gradient buffer per slice
    ComputePrecision precision_ = ComputePrecision::Fp32;
    std::vector<float> narrow_params_;  // BF16 mixed, TF32, FP16 mixed: the rounded copy of the weights for this batch
    LossScaler scaler_;                 // FP16 mixed
    float fixed_loss_scale_ = 0.0f;     // 0: dynamic (set_loss_scale)
    bool grads_finite_ = true;          // FP16 mixed: the last backward pass did not overflow
    UpdateCounts counts_;
    bool keep_activation_gradients_ = false;
    std::vector<std::vector<float>> activation_gradients_;  // per layer; empty for layers without weights
};

}  // namespace

void TrainEngine::set_compute_precision(ComputePrecision p) {
    if (p == ComputePrecision::Fp32) return;
    // cudnn overrides this for TF32 (the real thing on the GPU's tensor cores); cpu-scalar and
    // cpu-parallel model every precision by rounding.
    const bool on_gpu_too = p == ComputePrecision::Tf32 || p == ComputePrecision::Fp16Mixed;
    throw InputError(std::string(name()) + " multiplies in FP32 only: " + precision_short_label(p) + " (" +
                     precision_label(p) + ") runs on cpu-scalar and cpu-parallel" +
                     (on_gpu_too ? std::string(" (modelled by rounding) and on cudnn (for real, on a GPU of compute "
                                               "capability ") +
                                       (p == ComputePrecision::Tf32 ? "8.0" : "7.0") + " or newer)"
                                 : std::string()));
}

void TrainEngine::keep_activation_gradients(bool on) {
    if (on)
        throw core::InputError("the " + std::string(name()) +
                               " engine does not keep the gradients between layers; cpu-scalar and cpu-parallel do");
}

void TrainEngine::set_loss_scale(float fixed_scale) {
    check_loss_scale(fixed_scale);
    if (fixed_scale == 0.0f) return;  // dynamic: what every engine does when nothing is asked
    throw InputError(std::string(name()) + " has no loss scaling (it is part of FP16 mixed precision, which runs on "
                     "cpu-scalar, cpu-parallel and cudnn)");
}

void TrainEngine::set_gradients(const std::vector<float>&) {
    throw core::InputError("the " + std::string(name()) + " engine cannot take gradients summed over several workers; "
                           "data-parallel training (--workers) runs on cpu-scalar, cpu-parallel and cpu-onednn");
}

void check_setup_arguments(const ModelDesc& model, const std::vector<float>& params, std::int64_t max_batch) {
    // Before anything is allocated (issue 31, item 4): a model like conv99999 used to run for tens of
    // seconds into std::bad_alloc. (The callers ask before making the parameters, too.)
    check_training_fits(model, max_batch);
    if (static_cast<std::int64_t>(params.size()) != model.parameter_count)
        throw InputError("the parameters (" + std::to_string(params.size()) + ") do not fit the model (" +
                         std::to_string(model.parameter_count) + ")");
}

TrainEngineList make_cpu_train_engines() {
    TrainEngineList list;
    list.push_back(make_train_engine("cpu-scalar"));
    list.push_back(make_train_engine("cpu-parallel"));
    list.push_back(make_train_engine("cpu-onednn"));
    return list;
}

std::unique_ptr<TrainEngine> make_train_engine(std::string_view name) {
    if (name == "cpu-scalar")
        return std::make_unique<CpuTrainEngine>(scalar_layer_ops(),
                                                "the reference: plain loops on one core, too slow for epochs",
                                                scalar_layer_ops().implementation, false);
    if (name == "cpu-parallel")
        return std::make_unique<CpuTrainEngine>(
            parallel_layer_ops(), "all cores, vectorised: the fast CPU",
            std::string(parallel_layer_ops().implementation) + " (" + gemm_isa() + ", " +
                std::to_string(cpu::ThreadPool::shared().size()) +
                (cpu::ThreadPool::shared().size() == 1 ? " thread)" : " threads)"),
            true);
    if (name == "cpu-onednn") return make_onednn_train_engine();
    return nullptr;
}

std::string train_engine_names() { return "cpu-scalar, cpu-parallel, cpu-onednn"; }

}  // namespace gpulab::train
