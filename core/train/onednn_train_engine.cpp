// cpu-onednn training engine: see onednn_train_engine.h.
//
// Primitives are created once per batch size (the last batch of an epoch is smaller) and kept: oneDNN
// compiles its kernels when a primitive is created, and that should not be inside the timing. Our
// buffers are wrapped in place in plain layouts (N,C,H,W activations, O,I,H,W and O,I weights), the
// same as every other engine's, so parameters and gradients compare directly with cpu-scalar's;
// oneDNN's blocked layouts (nChw16c), which need reorders between layers, are not used yet, so its
// convolutions may run a slower implementation than it could (implementation() names what ran).
// dnnl::error becomes std::runtime_error("oneDNN: ...") for the trainer to report.
#include "train/onednn_train_engine.h"

#include <map>
#include <optional>
#include <stdexcept>

#include <dnnl.hpp>

#include "clock.h"
#include "image_io.h"
#include "train/cpu_layers.h"

namespace gpulab::train {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr memory::data_type f32 = memory::data_type::f32;

struct LayerPrims {
    memory::desc src, dst, weights, bias;
    std::optional<dnnl::primitive> forward, backward_data, backward_weights;
    std::optional<memory> workspace;  // max pooling: where each maximum was
    std::string implementation;
};

struct Net {
    std::vector<LayerPrims> layers;
};

class OnednnTrainEngine final : public TrainEngine {
public:
    OnednnTrainEngine() : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

    std::string_view name() const override { return "cpu-onednn"; }
    std::string_view description() const override { return "oneDNN's training primitives: the CPU library peer"; }
    core::Availability availability() const override { return {true, ""}; }
    std::string implementation() const override { return implementation_; }

    void setup(const ModelDesc& model, const std::vector<float>& params, std::int64_t max_batch) override {
        if (max_batch < 1) throw core::InputError("the batch must hold at least 1 image");
        if (static_cast<std::int64_t>(params.size()) != model.parameter_count)
            throw core::InputError("the parameters do not fit the model");
        model_ = model;
        max_batch_ = max_batch;
        params_ = params;
        grads_.assign(params.size(), 0.0f);
        velocity_.assign(params.size(), 0.0f);
        input_.assign(static_cast<std::size_t>(max_batch * model.input.size()), 0.0f);
        outputs_.clear();
        for (const Layer& l : model.layers) outputs_.emplace_back(static_cast<std::size_t>(max_batch * l.out.size()));
        const auto largest = static_cast<std::size_t>(max_batch * model.max_activation());
        grad_a_.assign(largest, 0.0f);
        grad_b_.assign(largest, 0.0f);
        times_.assign(model.layers.size(), {});
        nets_.clear();
        n_ = 0;
        guarded([&] { net(max_batch); });
    }

    void forward(const float* images, std::int64_t n) override {
        if (n < 1 || n > max_batch_)
            throw core::InputError("a batch of " + std::to_string(n) + " images does not fit the engine's " +
                                   std::to_string(max_batch_));
        n_ = n;
        std::copy(images, images + n * model_.input.size(), input_.begin());
        guarded([&] {
            Net& nt = net(n);
            for (std::size_t i = 0; i < model_.layers.size(); ++i) {
                const Layer& l = model_.layers[i];
                LayerPrims& p = nt.layers[i];
                const std::int64_t t0 = core::now_ns();
                std::unordered_map<int, memory> args{{DNNL_ARG_SRC, wrap(p.src, layer_input(i))},
                                                     {DNNL_ARG_DST, wrap(p.dst, outputs_[i].data())}};
                if (l.has_params()) {
                    args.emplace(DNNL_ARG_WEIGHTS, wrap(p.weights, params_.data() + l.weight_offset));
                    args.emplace(DNNL_ARG_BIAS, wrap(p.bias, params_.data() + l.bias_offset));
                }
                if (p.workspace) args.emplace(DNNL_ARG_WORKSPACE, *p.workspace);
                p.forward->execute(stream_, args);
                stream_.wait();
                times_[i].forward_ns = core::now_ns() - t0;
            }
        });
    }

    BatchResult backward(const std::uint8_t* labels) override {
        if (n_ == 0) throw core::InputError("backward needs a forward pass first");
        for (std::int64_t m = 0; m < n_; ++m)
            if (labels[m] >= model_.classes)
                throw core::InputError("label " + std::to_string(labels[m]) + " is not one of the model's classes");
        float* dy = grad_a_.data();
        float* dx = grad_b_.data();
        const BatchResult result =
            parallel_layer_ops().softmax_cross_entropy(n_, model_.classes, outputs_.back().data(), labels, dy);
        guarded([&] {
            Net& nt = net(n_);
            for (std::size_t i = model_.layers.size(); i-- > 0;) {
                const Layer& l = model_.layers[i];
                LayerPrims& p = nt.layers[i];
                const std::int64_t t0 = core::now_ns();
                const memory diff_dst = wrap(p.dst, dy), diff_src = wrap(p.src, dx);
                switch (l.kind) {
                    case LayerKind::Conv:
                    case LayerKind::Dense:
                        p.backward_weights->execute(
                            stream_, {{DNNL_ARG_SRC, wrap(p.src, layer_input(i))},
                                      {DNNL_ARG_DIFF_DST, diff_dst},
                                      {DNNL_ARG_DIFF_WEIGHTS, wrap(p.weights, grads_.data() + l.weight_offset)},
                                      {DNNL_ARG_DIFF_BIAS, wrap(p.bias, grads_.data() + l.bias_offset)}});
                        if (p.backward_data)
                            p.backward_data->execute(stream_,
                                                     {{DNNL_ARG_DIFF_DST, diff_dst},
                                                      {DNNL_ARG_WEIGHTS, wrap(p.weights, params_.data() + l.weight_offset)},
                                                      {DNNL_ARG_DIFF_SRC, diff_src}});
                        break;
                    case LayerKind::Relu:
                        p.backward_data->execute(stream_, {{DNNL_ARG_SRC, wrap(p.src, layer_input(i))},
                                                           {DNNL_ARG_DIFF_DST, diff_dst},
                                                           {DNNL_ARG_DIFF_SRC, diff_src}});
                        break;
                    case LayerKind::MaxPool:
                        p.backward_data->execute(stream_, {{DNNL_ARG_DIFF_DST, diff_dst},
                                                           {DNNL_ARG_DIFF_SRC, diff_src},
                                                           {DNNL_ARG_WORKSPACE, *p.workspace}});
                        break;
                }
                stream_.wait();
                times_[i].backward_ns = core::now_ns() - t0;
                std::swap(dx, dy);
            }
        });
        return result;
    }

    void step(const Sgd& sgd) override {
        parallel_layer_ops().sgd_momentum(static_cast<std::int64_t>(params_.size()), sgd, params_.data(),
                                          velocity_.data(), grads_.data());
    }

    std::vector<float> logits() const override {
        return {outputs_.back().begin(), outputs_.back().begin() + n_ * model_.classes};
    }
    std::vector<float> gradients() const override { return grads_; }
    std::vector<float> params() const override { return params_; }
    std::vector<LayerTime> layer_times() const override { return times_; }

private:
    template <class Fn>
    void guarded(const Fn& fn) {
        try {
            fn();
        } catch (const dnnl::error& e) {
            throw std::runtime_error(std::string("oneDNN: ") + e.what() + " (status " +
                                     std::to_string(static_cast<int>(e.status)) + ")");
        }
    }

    memory wrap(const memory::desc& md, const float* p) { return memory(md, engine_, const_cast<float*>(p)); }
    const float* layer_input(std::size_t i) const { return i == 0 ? input_.data() : outputs_[i - 1].data(); }

    Net& net(std::int64_t n) {
        auto it = nets_.find(n);
        if (it != nets_.end()) return it->second;
        Net nt;
        const memory::dims one{1, 1}, zero{0, 0};
        for (const Layer& l : model_.layers) {
            LayerPrims p;
            const memory::dims src_dims{n, l.in.c, l.in.h, l.in.w}, dst_dims{n, l.out.c, l.out.h, l.out.w};
            switch (l.kind) {
                case LayerKind::Conv: {
                    p.src = memory::desc(src_dims, f32, tag::nchw);
                    p.dst = memory::desc(dst_dims, f32, tag::nchw);
                    p.weights = memory::desc({l.out.c, l.in.c, l.kernel, l.kernel}, f32, tag::oihw);
                    p.bias = memory::desc({l.out.c}, f32, tag::x);
                    const dnnl::convolution_forward::primitive_desc fwd(
                        {dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, p.src, p.weights,
                         p.bias, p.dst, one, zero, zero},
                        engine_);
                    p.forward.emplace(dnnl::convolution_forward(fwd));
                    p.backward_weights.emplace(dnnl::convolution_backward_weights(
                        dnnl::convolution_backward_weights::primitive_desc(
                            {dnnl::algorithm::convolution_direct, p.src, p.weights, p.bias, p.dst, one, zero, zero},
                            engine_, fwd)));
                    if (l.needs_input_gradient)
                        p.backward_data.emplace(dnnl::convolution_backward_data(
                            dnnl::convolution_backward_data::primitive_desc(
                                {dnnl::algorithm::convolution_direct, p.src, p.weights, p.dst, one, zero, zero},
                                engine_, fwd)));
                    p.implementation = fwd.impl_info_str();
                    break;
                }
                case LayerKind::Relu: {
                    p.src = p.dst = memory::desc({n * l.in.size()}, f32, tag::a);
                    const dnnl::eltwise_forward::primitive_desc fwd(
                        {dnnl::prop_kind::forward_training, dnnl::algorithm::eltwise_relu, p.src, 0.0f, 0.0f}, engine_);
                    p.forward.emplace(dnnl::eltwise_forward(fwd));
                    p.backward_data.emplace(dnnl::eltwise_backward(dnnl::eltwise_backward::primitive_desc(
                        {dnnl::algorithm::eltwise_relu, p.src, p.src, 0.0f, 0.0f}, engine_, fwd)));
                    break;
                }
                case LayerKind::MaxPool: {
                    p.src = memory::desc(src_dims, f32, tag::nchw);
                    p.dst = memory::desc(dst_dims, f32, tag::nchw);
                    const memory::dims window{l.kernel, l.kernel};
                    // An odd last row or column is dropped: oneDNN's output size (in - 2) / 2 + 1 rounds
                    // down, as ours does, so no padding is needed.
                    const memory::dims pad_r = zero;
                    const dnnl::pooling_forward::primitive_desc fwd(
                        {dnnl::prop_kind::forward_training, dnnl::algorithm::pooling_max, p.src, p.dst, window, window,
                         zero, pad_r},
                        engine_);
                    p.forward.emplace(dnnl::pooling_forward(fwd));
                    p.workspace.emplace(fwd.workspace_desc(), engine_);
                    p.backward_data.emplace(dnnl::pooling_backward(dnnl::pooling_backward::primitive_desc(
                        {dnnl::algorithm::pooling_max, p.src, p.dst, window, window, zero, pad_r}, engine_, fwd)));
                    break;
                }
                case LayerKind::Dense: {
                    p.src = memory::desc({n, l.in.size()}, f32, tag::nc);
                    p.dst = memory::desc({n, l.out.c}, f32, tag::nc);
                    p.weights = memory::desc({l.out.c, l.in.size()}, f32, tag::oi);
                    p.bias = memory::desc({l.out.c}, f32, tag::x);
                    const dnnl::inner_product_forward::primitive_desc fwd(
                        {dnnl::prop_kind::forward_training, p.src, p.weights, p.bias, p.dst}, engine_);
                    p.forward.emplace(dnnl::inner_product_forward(fwd));
                    p.backward_weights.emplace(dnnl::inner_product_backward_weights(
                        dnnl::inner_product_backward_weights::primitive_desc({p.src, p.weights, p.bias, p.dst}, engine_,
                                                                             fwd)));
                    if (l.needs_input_gradient)
                        p.backward_data.emplace(dnnl::inner_product_backward_data(
                            dnnl::inner_product_backward_data::primitive_desc({p.src, p.weights, p.dst}, engine_, fwd)));
                    p.implementation = fwd.impl_info_str();
                    break;
                }
            }
            nt.layers.push_back(std::move(p));
        }
        if (implementation_.empty()) {
            implementation_ = "oneDNN " + std::to_string(dnnl_version()->major) + "." +
                              std::to_string(dnnl_version()->minor) + ", plain NCHW layouts;";
            for (std::size_t i = 0; i < model_.layers.size(); ++i)
                if (!nt.layers[i].implementation.empty())
                    implementation_ += " " + model_.layers[i].name + " " + nt.layers[i].implementation;
        }
        return nets_.emplace(n, std::move(nt)).first->second;
    }

    dnnl::engine engine_;
    dnnl::stream stream_;
    ModelDesc model_;
    std::int64_t max_batch_ = 0, n_ = 0;
    std::vector<float> params_, grads_, velocity_, input_, grad_a_, grad_b_;
    std::vector<std::vector<float>> outputs_;
    std::vector<LayerTime> times_;
    std::map<std::int64_t, Net> nets_;
    std::string implementation_;
};

}  // namespace

std::unique_ptr<TrainEngine> make_onednn_train_engine() {
    try {
        return std::make_unique<OnednnTrainEngine>();
    } catch (const dnnl::error& e) {
        throw std::runtime_error(std::string("oneDNN: cannot create a CPU engine: ") + e.what());
    }
}

}  // namespace gpulab::train
