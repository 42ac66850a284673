// The training engine of our own CUDA kernels, written once for two devices:
//
//   cuda-kernel  KernelTrainEngine<cuda::CudaDevice>  (cuda_train_engine.cu, nvcc): device buffers,
//                one stream, every runtime call checked, per-layer times from cudaEvents;
//   cuda-sim     KernelTrainEngine<sim::SimDevice>    (sim_train_engine.cpp, host compiler): the same
//                kernels on the SIMT simulator; BackendKind::Simulated, so its times (the
//                simulation's) never enter a speed figure.
//
// Why a template over a small "device" instead of #ifdefs or a virtual interface: a kernel launch
// passes the kernel's own argument types (GlobalPtr<T>, which is T* under nvcc and a checked
// simulator pointer on the host), so launch() cannot be one virtual signature; and #ifdefs would fork
// every layer. A device is five things (Array<T>, alloc/upload/download/zero, launch, timing
// stamps; listed in sim_device.h) and each twin is about a page; the layer sequence below and the
// launches in train_layers.h exist once. Include the device environment (cuda_device_env.cuh or
// sim/sim_device_env.h) and the device's header before this one.
//
// State on the device between calls (so a step moves only a batch in): the parameters, their
// gradients and momentum as one flat vector each (laid out as ModelDesc says), every layer's output
// of the last forward (the backward pass reads them), two ping-pong buffers for the gradient flowing
// down, the labels and the per-image loss and correct flags.
//
// Verified by tests/test_gpu_train.cpp: logits, loss, gradients and a step's parameters equal
// cpu-scalar's within the tolerance stated there, on cuda-sim (every machine) and cuda-kernel (a
// GPU, else skipped).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "gpu_train_engines.h"
#include "io/image_io.h"  // core::InputError
#include "train/engine.h"
#include "train_launch.h"
#include "train_layers.h"

namespace gpulab::kern {

// Empty when our kernels take `model` at batch `max_batch`, else one sentence: the tiled matrix
// multiply's grid covers at most kMatmulMaxRows rows (the batch, or a dense layer's outputs).
inline std::string kernel_engine_problem(const train::ModelDesc& model, int64_t max_batch) {
    if (max_batch > kMatmulMaxRows)
        return "our CUDA training kernels take batches of at most " + std::to_string(kMatmulMaxRows) + " images";
    for (const train::Layer& l : model.layers)
        if (l.kind == train::LayerKind::Dense && l.out.c > kMatmulMaxRows)
            return "our CUDA training kernels take dense layers of at most " + std::to_string(kMatmulMaxRows) +
                   " outputs";
    return "";
}

template <class Dev>
class KernelTrainEngine final : public train::TrainEngine {
public:
    struct Identity {
        std::string name, description, implementation;
        core::BackendKind kind;
        core::Availability (*availability)();  // asked on every call: a GPU's may change once probed
    };
    explicit KernelTrainEngine(Identity id) : id_(std::move(id)) {}

    std::string_view name() const override { return id_.name; }
    std::string_view description() const override { return id_.description; }
    core::Availability availability() const override { return id_.availability(); }
    core::BackendKind kind() const override { return id_.kind; }
    std::string implementation() const override { return id_.implementation; }
    // FP32 only (the base class refuses BF16). TF32 and FP16 mixed get sentences of their own: they
    // are tensor-core formats, and our kernels multiply on the ordinary FP32 units, so there is
    // nothing to switch.
    void set_compute_precision(train::ComputePrecision p) override {
        gpu::check_kernel_engine_precision(*this, p);
        train::TrainEngine::set_compute_precision(p);
    }

    void setup(const train::ModelDesc& model, const std::vector<float>& params, int64_t max_batch) override {
        train::check_setup_arguments(model, params, max_batch);
        const core::Availability a = availability();
        if (!a.ok) throw std::runtime_error(id_.name + " cannot run: " + a.reason);
        const std::string problem = kernel_engine_problem(model, max_batch);
        if (!problem.empty()) throw core::InputError(problem);
        // The device (a stream, on a GPU) is created here, not in the constructor: the factory lists
        // the engine on machines without a GPU, where only availability() may be asked.
        dev_ = std::make_unique<Dev>();
        model_ = model;
        max_batch_ = max_batch;
        n_ = 0;
        const auto count = static_cast<std::size_t>(model.parameter_count);
        params_ = dev_->template alloc<float>("params", count);
        grads_ = dev_->template alloc<float>("gradients", count);
        velocity_ = dev_->template alloc<float>("momentum", count);
        dev_->upload(params_, params.data(), count);
        input_ = dev_->template alloc<float>("images", sized(model.input.size()));
        outputs_.clear();
        argmax_.clear();
        for (const train::Layer& l : model.layers) {
            outputs_.push_back(dev_->template alloc<float>("activation", sized(l.out.size())));
            // Pooling layers keep which input of each window won, a byte per output, for backward.
            argmax_.push_back(l.kind == train::LayerKind::MaxPool
                                  ? dev_->template alloc<uint8_t>("pooling winners", sized(l.out.size()))
                                  : typename Dev::template Array<uint8_t>{});
        }
        grad_a_ = dev_->template alloc<float>("gradient ping", sized(model.max_activation()));
        grad_b_ = dev_->template alloc<float>("gradient pong", sized(model.max_activation()));
        labels_ = dev_->template alloc<uint8_t>("labels", sized(1));
        loss_ = dev_->template alloc<float>("loss per image", sized(1));
        correct_ = dev_->template alloc<int>("correct per image", sized(1));
        times_.assign(model.layers.size(), {});
        dev_->reserve_stamps(model.layers.size() + 1);
    }

    void forward(const float* images, int64_t n) override  try {
        require_setup();
        if (n < 1 || n > max_batch_)
            throw core::InputError("a batch of " + std::to_string(n) + " images does not fit the engine's " +
                                   std::to_string(max_batch_));
        n_ = n;
        dev_->upload(input_, images, static_cast<std::size_t>(n * model_.input.size()));
        dev_->stamp(0);
        for (std::size_t i = 0; i < model_.layers.size(); ++i) {
            const train::Layer& l = model_.layers[i];
            const auto x = layer_input(i);
            const auto y = outputs_[i].ptr();
            switch (l.kind) {
                case train::LayerKind::Conv: layers::conv_forward(*dev_, conv_shape(l), x, weights(l), biases(l), y); break;
                case train::LayerKind::Relu: layers::relu_forward(*dev_, n_ * l.out.size(), x, y); break;
                case train::LayerKind::MaxPool:
                    layers::maxpool_forward(*dev_, n_ * l.in.c, l.in.h, l.in.w, x, y, argmax_[i].ptr());
                    break;
                case train::LayerKind::Dense:
                    layers::dense_forward(*dev_, n_, l.in.size(), l.out.c, x, weights(l), biases(l), y);
                    break;
            }
            dev_->stamp(i + 1);
        }
        dev_->finish();
        for (std::size_t i = 0; i < times_.size(); ++i) times_[i].forward_ns = dev_->ns_between(i, i + 1);
    } catch (const std::exception& e) {
        note_failure(e);
        throw;
    }

    train::BatchResult backward(const uint8_t* labels) override  try {
        require_setup();
        if (n_ == 0) throw core::InputError("backward needs a forward pass first");
        // Checked here, on the host, so the loss kernels never index outside a row of logits.
        for (int64_t m = 0; m < n_; ++m)
            if (labels[m] >= model_.classes)
                throw core::InputError("label " + std::to_string(labels[m]) + " is not one of the model's " +
                                       std::to_string(model_.classes) + " classes");
        dev_->upload(labels_, labels, static_cast<std::size_t>(n_));
        const std::size_t last = model_.layers.size();
        // The loss and its gradient (into grad_a_) count towards the last layer's backward time.
        dev_->stamp(last);
        layers::softmax_cross_entropy(*dev_, n_, model_.classes, outputs_.back().ptr(), labels_.ptr(), loss_.ptr(),
                                      correct_.ptr(), grad_a_.ptr());
        auto dy = grad_a_.ptr();
        auto dx = grad_b_.ptr();
        const auto g = grads_.ptr();
        for (std::size_t i = last; i-- > 0;) {
            const train::Layer& l = model_.layers[i];
            const auto x = layer_input(i);
            switch (l.kind) {
                case train::LayerKind::Conv:
                    layers::conv_backward_weights(*dev_, conv_shape(l), x, dy, g + l.weight_offset, g + l.bias_offset);
                    if (l.needs_input_gradient) layers::conv_backward_data(*dev_, conv_shape(l), dy, weights(l), dx);
                    break;
                case train::LayerKind::Relu: layers::relu_backward(*dev_, n_ * l.out.size(), outputs_[i].ptr(), dy, dx); break;
                case train::LayerKind::MaxPool:
                    layers::maxpool_backward(*dev_, n_ * l.in.c, l.in.h, l.in.w, argmax_[i].ptr(), dy, dx);
                    break;
                case train::LayerKind::Dense:
                    layers::dense_backward_weights(*dev_, n_, l.in.size(), l.out.c, x, dy, g + l.weight_offset,
                                                   g + l.bias_offset);
                    if (l.needs_input_gradient)
                        layers::dense_backward_data(*dev_, n_, l.in.size(), l.out.c, dy, weights(l), dx);
                    break;
            }
            dev_->stamp(i);  // stamps run backwards: layer i's backward lies between stamp i + 1 and i
            std::swap(dy, dx);  // this layer's input gradient is the upstream gradient of the one before
        }
        dev_->finish();
        for (std::size_t i = 0; i < times_.size(); ++i) times_[i].backward_ns = dev_->ns_between(i + 1, i);
        // Per-image losses summed here in double, in image order: the mean does not depend on how
        // a GPU would order a reduction.
        std::vector<float> loss(static_cast<std::size_t>(n_));
        std::vector<int> correct(static_cast<std::size_t>(n_));
        dev_->download(loss_, loss.data(), loss.size());
        dev_->download(correct_, correct.data(), correct.size());
        train::BatchResult r;
        for (std::size_t m = 0; m < loss.size(); ++m) {
            r.loss += loss[m];
            r.correct += correct[m];
        }
        r.loss /= static_cast<double>(n_);
        return r;
    } catch (const std::exception& e) {
        note_failure(e);
        throw;
    }

    void step(const train::Sgd& sgd) override  try {
        require_setup();
        layers::sgd_momentum(*dev_, model_.parameter_count, sgd.learning_rate, sgd.momentum, params_.ptr(),
                             velocity_.ptr(), grads_.ptr());
        dev_->finish();
    } catch (const std::exception& e) {
        note_failure(e);
        throw;
    }

    std::vector<float> logits() const override { return read(outputs_.empty() ? nullptr : &outputs_.back(), n_ * model_.classes); }
    std::vector<float> gradients() const override { return read(&grads_, model_.parameter_count); }
    std::vector<float> params() const override { return read(&params_, model_.parameter_count); }
    std::vector<train::LayerTime> layer_times() const override { return times_; }

private:
    using Floats = typename Dev::template Array<float>;

    std::size_t sized(int64_t per_image) const { return static_cast<std::size_t>(max_batch_ * per_image); }
    void require_setup() const {
        if (!dev_) throw std::logic_error(id_.name + ": setup() must come before training");
    }
    std::vector<float> read(const Floats* a, int64_t count) const {
        std::vector<float> out(static_cast<std::size_t>(std::max<int64_t>(count, 0)));
        if (dev_ && a != nullptr && !out.empty()) dev_->download(*a, out.data(), out.size());
        return out;
    }
    auto layer_input(std::size_t i) const { return i == 0 ? input_.ptr() : outputs_[i - 1].ptr(); }
    auto weights(const train::Layer& l) const { return params_.ptr() + l.weight_offset; }
    auto biases(const train::Layer& l) const { return params_.ptr() + l.bias_offset; }
    TrainConvShape conv_shape(const train::Layer& l) const {
        return train_conv_shape(n_, l.in.c, l.in.h, l.in.w, l.out.c, l.kernel);
    }

    Identity id_;
    std::unique_ptr<Dev> dev_;

    // A failure on the device: the device decides whether it poisoned the context for every other
    // GPU user in the process (cuda::note_if_context_lost; the simulator's never does).
    void note_failure(const std::exception& e) const noexcept {
        if (dev_) dev_->note_failure(e.what());
    }
    train::ModelDesc model_;
    int64_t max_batch_ = 0;
    int64_t n_ = 0;
    Floats params_, grads_, velocity_, input_, grad_a_, grad_b_;
    std::vector<Floats> outputs_;
    std::vector<typename Dev::template Array<uint8_t>> argmax_;  // per layer; allocated for pooling layers
    typename Dev::template Array<uint8_t> labels_;
    Floats loss_;
    typename Dev::template Array<int> correct_;
    std::vector<train::LayerTime> times_;
};

}  // namespace gpulab::kern
