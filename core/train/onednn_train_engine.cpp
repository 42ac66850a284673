// cpu-onednn training engine: see onednn_train_engine.h.
//
// Primitives are created once per batch size (the last batch of an epoch is smaller) and kept: oneDNN
// compiles its kernels when a primitive is created, and that should not be inside the timing.
// Between layers our buffers are wrapped in place in plain layouts (N,C,H,W activations, O,I,H,W and
// O,I weights), the same as every other engine's, so parameters and gradients compare directly with
// cpu-scalar's. Convolutions, where the time goes, run in the layouts oneDNN picks (format_tag::any:
// blocked nChw16c and the like, for its direct AVX-512 kernels), with reorders at the layer's edges
// that are timed with the layer. A whole net kept in blocked layouts would save those reorders: not
// done yet. implementation() names the kernels that ran.
// dnnl::error becomes std::runtime_error("oneDNN: ...") for the trainer to report.
#include "onednn_train_engine.h"

#include <map>
#include <optional>
#include <stdexcept>

#include <dnnl.hpp>

#include "measure/clock.h"
#include "io/image_io.h"
#include "cpu_layers.h"
#include "host_train_engine.h"

namespace gpulab::train {

namespace {

using dnnl::memory;
using tag = memory::format_tag;
constexpr memory::data_type f32 = memory::data_type::f32;

struct LayerPrims {
    memory::desc src, dst, weights, bias;  // our plain layouts
    std::optional<dnnl::primitive> forward, backward_data, backward_weights;
    std::optional<memory> workspace;  // max pooling: where each maximum was
    std::string implementation;
    // Convolutions run in the layouts oneDNN picks (blocked, nChw16c and the like): the layouts of
    // each primitive's arguments, and scratch memory for the reorders at the layer's edges.
    std::optional<dnnl::convolution_forward::primitive_desc> conv_fwd;
    std::optional<dnnl::convolution_backward_weights::primitive_desc> conv_bwd_weights;
    std::optional<dnnl::convolution_backward_data::primitive_desc> conv_bwd_data;
    std::optional<memory> x_fwd, w_fwd, y_fwd, dy_w, dw, dy_d, w_d, dx;
};

struct Net {
    std::vector<LayerPrims> layers;
};

class OnednnTrainEngine final : public HostTrainEngine {
public:
    OnednnTrainEngine() : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

    std::string_view name() const override { return "cpu-onednn"; }
    std::string_view description() const override { return "oneDNN's training primitives: the CPU library peer"; }
    std::string implementation() const override { return implementation_; }

    void setup(const ModelDesc& model, const std::vector<float>& params, std::int64_t max_batch) override {
        setup_host_buffers(model, params, max_batch);
        nets_.clear();
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
                if (l.kind == LayerKind::Conv) {
                    conv_forward(l, p, i);
                    stream_.wait();
                    times_[i].forward_ns = core::now_ns() - t0;
                    continue;
                }
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
        float* dy = grad_in_.data();
        float* dx = grad_out_.data();
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
                    case LayerKind::Conv: conv_backward(l, p, i, dy, dx); break;
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

    // `m`'s data in layout `want`: m itself when the layouts match, else reordered into `scratch`.
    memory in_layout(const memory& m, const memory::desc& want, std::optional<memory>& scratch) {
        if (m.get_desc() == want) return m;
        if (!scratch || scratch->get_desc() != want) scratch.emplace(want, engine_);
        dnnl::reorder(m, *scratch).execute(stream_, const_cast<memory&>(m), *scratch);
        return *scratch;
    }
    // Where a primitive writes a result of layout `have` that we keep in `plain`: plain itself, or
    // scratch to be reordered afterwards by copy_back.
    memory out_layout(const memory& plain, const memory::desc& have, std::optional<memory>& scratch) {
        if (plain.get_desc() == have) return plain;
        if (!scratch || scratch->get_desc() != have) scratch.emplace(have, engine_);
        return *scratch;
    }
    void copy_back(memory& written, const memory& plain) {
        if (written.get_data_handle() == plain.get_data_handle()) return;
        dnnl::reorder(written, plain).execute(stream_, written, const_cast<memory&>(plain));
    }

    void conv_forward(const Layer& l, LayerPrims& p, std::size_t i) {
        const memory x = wrap(p.src, layer_input(i)), y = wrap(p.dst, outputs_[i].data());
        const memory xb = in_layout(x, p.conv_fwd->src_desc(), p.x_fwd);
        const memory wb = in_layout(wrap(p.weights, params_.data() + l.weight_offset), p.conv_fwd->weights_desc(), p.w_fwd);
        memory yb = out_layout(y, p.conv_fwd->dst_desc(), p.y_fwd);
        p.forward->execute(stream_, {{DNNL_ARG_SRC, xb},
                                     {DNNL_ARG_WEIGHTS, wb},
                                     {DNNL_ARG_BIAS, wrap(p.bias, params_.data() + l.bias_offset)},
                                     {DNNL_ARG_DST, yb}});
        copy_back(yb, y);
    }

    void conv_backward(const Layer& l, LayerPrims& p, std::size_t i, const float* dy, float* dx) {
        const memory dy_plain = wrap(p.dst, dy);
        // The forward pass left the input in the forward layout (p.x_fwd) unless it was plain already.
        const memory x = wrap(p.src, layer_input(i));
        const memory xb = in_layout(x, p.conv_bwd_weights->src_desc(), p.x_fwd);
        const memory dyw = in_layout(dy_plain, p.conv_bwd_weights->diff_dst_desc(), p.dy_w);
        const memory dw_plain = wrap(p.weights, grads_.data() + l.weight_offset);
        memory dwb = out_layout(dw_plain, p.conv_bwd_weights->diff_weights_desc(), p.dw);
        p.backward_weights->execute(stream_, {{DNNL_ARG_SRC, xb},
                                              {DNNL_ARG_DIFF_DST, dyw},
                                              {DNNL_ARG_DIFF_WEIGHTS, dwb},
                                              {DNNL_ARG_DIFF_BIAS, wrap(p.bias, grads_.data() + l.bias_offset)}});
        copy_back(dwb, dw_plain);
        if (!p.conv_bwd_data) return;
        const memory dyd = dyw.get_desc() == p.conv_bwd_data->diff_dst_desc()
                               ? dyw
                               : in_layout(dy_plain, p.conv_bwd_data->diff_dst_desc(), p.dy_d);
        const memory wd = in_layout(wrap(p.weights, params_.data() + l.weight_offset), p.conv_bwd_data->weights_desc(), p.w_d);
        const memory dx_plain = wrap(p.src, dx);
        memory dxb = out_layout(dx_plain, p.conv_bwd_data->diff_src_desc(), p.dx);
        p.backward_data->execute(stream_, {{DNNL_ARG_DIFF_DST, dyd}, {DNNL_ARG_WEIGHTS, wd}, {DNNL_ARG_DIFF_SRC, dxb}});
        copy_back(dxb, dx_plain);
    }
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
                    // format_tag::any: oneDNN picks the layouts its fastest kernel wants.
                    const memory::desc src_any(src_dims, f32, tag::any), dst_any(dst_dims, f32, tag::any),
                        weights_any({l.out.c, l.in.c, l.kernel, l.kernel}, f32, tag::any);
                    p.conv_fwd.emplace(dnnl::convolution_forward::desc{dnnl::prop_kind::forward_training,
                                                                       dnnl::algorithm::convolution_direct, src_any,
                                                                       weights_any, p.bias, dst_any, one, zero, zero},
                                       engine_);
                    p.forward.emplace(dnnl::convolution_forward(*p.conv_fwd));
                    p.conv_bwd_weights.emplace(
                        dnnl::convolution_backward_weights::desc{dnnl::algorithm::convolution_direct, src_any,
                                                                 weights_any, p.bias, dst_any, one, zero, zero},
                        engine_, *p.conv_fwd);
                    p.backward_weights.emplace(dnnl::convolution_backward_weights(*p.conv_bwd_weights));
                    if (l.needs_input_gradient) {
                        p.conv_bwd_data.emplace(
                            dnnl::convolution_backward_data::desc{dnnl::algorithm::convolution_direct, src_any,
                                                                  weights_any, dst_any, one, zero, zero},
                            engine_, *p.conv_fwd);
                        p.backward_data.emplace(dnnl::convolution_backward_data(*p.conv_bwd_data));
                    }
                    p.implementation = p.conv_fwd->impl_info_str();
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
                              std::to_string(dnnl_version()->minor) + ", convolutions in oneDNN's layouts, reorders at their edges;";
            for (std::size_t i = 0; i < model_.layers.size(); ++i)
                if (!nt.layers[i].implementation.empty())
                    implementation_ += " " + model_.layers[i].name + " " + nt.layers[i].implementation;
        }
        return nets_.emplace(n, std::move(nt)).first->second;
    }

    dnnl::engine engine_;
    dnnl::stream stream_;
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
