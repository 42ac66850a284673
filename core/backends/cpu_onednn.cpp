// cpu-onednn: the activations through oneDNN 2.x eltwise primitives (see cpu_onednn.h).
//
// One engine and stream for the process; the last primitive is kept and reused while the op and
// size stay the same (a measurement loop), so timings are of the kernel, not of its JIT
// compilation. Our tensors are wrapped in place (no copies). oneDNN reports errors as dnnl::error
// exceptions; they stop here and come back as RunResult errors.
// Verified by tests/test_cpu_backends.cpp ("cpu-onednn ..." cases).
#include "cpu_onednn.h"
#include "cpu_onednn_engine.h"

#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <dnnl.hpp>

#include "measure/clock.h"
#include "cpu_scalar.h"
#include "cpu_limit.h"
#include "runtime/memory.h"
#include "backends/simd/gemm_bf16.h"
#include "backends/simd/simd_math.h"

namespace gpulab::cpu {

namespace onednn_detail {

std::string version_string() {
    const dnnl_version_t* v = dnnl_version();
    return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

std::string error_text(const dnnl::error& e) {
    return std::string("oneDNN: ") + e.what() + " (status " + std::to_string(static_cast<int>(e.status)) + ")";
}

namespace {

// With GPULAB_ISA forcing our ISA, oneDNN gets the same ceiling, or an AVX2 comparison would pit
// our AVX2 loop against its AVX-512 JIT. Its lowest JIT level is SSE4.1 (our baseline is SSE2).
// An explicit DNNL_MAX_CPU_ISA / ONEDNN_MAX_CPU_ISA wins. Must run before oneDNN's first JIT.
// (GPULAB_ISA=avx512 caps it at AVX512_CORE: no AVX512_BF16 or AMX, so its BF16 matmul is emulated then.)

std::string cap_onednn_isa() {
    const IsaChoice& c = isa_choice();
    // GPULAB_CPU_HIDE's stand-in CPU (gemm_bf16.h) hides the units from oneDNN too, or its BF16
    // matmul would still run on the tiles the rest of the process pretends are absent.
    const bool hide_bf16 = cpu_flag_hidden("avx512bf16"), hide_amx = hide_bf16 || cpu_flag_hidden("amx");
    if (!c.forced && !hide_amx) return "";
    if (std::getenv("DNNL_MAX_CPU_ISA") != nullptr || std::getenv("ONEDNN_MAX_CPU_ISA") != nullptr) {
        return "ISA as DNNL_MAX_CPU_ISA says";
    }
    dnnl::cpu_isa cap = dnnl::cpu_isa::all;
    std::string name;
    if (!c.forced) {
        cap = hide_bf16 ? dnnl::cpu_isa::avx512_core : dnnl::cpu_isa::avx512_core_bf16;
        name = hide_bf16 ? "AVX512_CORE" : "AVX512_CORE_BF16";
        try {
            dnnl::set_max_cpu_isa(cap);
        } catch (const dnnl::error& err) {
            return "not capped (" + error_text(err) + ")";
        }
        return "at most " + name + " by GPULAB_CPU_HIDE=" + std::getenv("GPULAB_CPU_HIDE");
    }
    switch (c.isa) {
        case SimdIsa::Avx512: cap = dnnl::cpu_isa::avx512_core, name = "AVX512_CORE"; break;
        case SimdIsa::Avx2Fma: cap = dnnl::cpu_isa::avx2, name = "AVX2"; break;
        case SimdIsa::Baseline: cap = dnnl::cpu_isa::sse41, name = "SSE41"; break;
    }
    try {
        dnnl::set_max_cpu_isa(cap);
    } catch (const dnnl::error& err) {
        return "not capped (" + error_text(err) + ")";
    }
    return "capped to " + name + " by GPULAB_ISA=" + c.request;
}

}  // namespace

// One process-wide CPU engine: creating it loads the JIT machinery once.
const Engine& cpu_engine() {
    static const Engine e = [] {
        Engine r;
        r.isa_cap = cap_onednn_isa();
        try {
            r.engine.emplace(dnnl::engine::kind::cpu, 0);
        } catch (const dnnl::error& err) {
            r.failure = error_text(err);
        }
        return r;
    }();
    return e;
}

}  // namespace onednn_detail

using namespace gpulab::core;
using onednn_detail::cpu_engine;
using onednn_detail::Engine;
using onednn_detail::error_text;
using onednn_detail::version_string;

namespace {

// Same formulas as hd_math.h on finite inputs; not on NaN / inf (see cpu_onednn.h).
dnnl::algorithm algorithm_for(Activation a) {
    switch (a) {
        case Activation::Relu:
        case Activation::LeakyRelu: return dnnl::algorithm::eltwise_relu;  // alpha = slope below 0
        case Activation::Sigmoid: return dnnl::algorithm::eltwise_logistic;
        case Activation::Tanh: return dnnl::algorithm::eltwise_tanh;
        case Activation::Gelu: return dnnl::algorithm::eltwise_gelu_tanh;  // the same tanh form as hd_math.h
    }
    return dnnl::algorithm::eltwise_relu;
}

float alpha_for(const OpDesc& op) { return op.activation == Activation::LeakyRelu ? op.leaky_alpha : 0.0f; }

dnnl::eltwise_forward::primitive_desc make_pd(const OpDesc& op, int64_t n) {
    const dnnl::memory::desc md({n}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    const dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, algorithm_for(op.activation), md,
                                        alpha_for(op), 0.0f);
    return dnnl::eltwise_forward::primitive_desc(d, *cpu_engine().engine);
}

class OnednnBackend final : public Backend {
public:
    OnednnBackend() {
        const Engine& e = cpu_engine();
        if (!e.engine) {
            availability_ = {false, e.failure};
            description_ = "oneDNN " + version_string() + " eltwise primitives (engine failed to start)";
            return;
        }
        availability_ = {true, "oneDNN " + version_string()};
        OpDesc relu;
        description_ = "oneDNN " + version_string() + " eltwise primitives on its own OpenMP threads; kernel " +
                       onednn_implementation(relu, int64_t{1} << 20) +
                       (e.isa_cap.empty() ? std::string() : " (" + e.isa_cap + ")");
        // libgomp reads this once at load time. Its default spin-wait between calls was seen to
        // cost ~8 ms per call on a busy 2-core VM; the student should know why the numbers jump.
        if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
            description_ += " (OpenMP spin-waits between calls; OMP_WAIT_POLICY=passive helps on a busy machine)";
        }
    }

    std::string_view name() const override { return "cpu-onednn"; }
    std::string_view description() const override { return description_; }
    BackendKind kind() const override { return BackendKind::Cpu; }
    Availability availability() const override { return availability_; }
    bool supports(const OpDesc& op) const override { return availability_.ok && op.kind == OpKind::Activation; }
    Availability can_allocate(std::size_t bytes) const override { return check_host_allocation(bytes); }

    RunResult run(const OpDesc& op, const Tensor& in, Tensor& out) override {
        RunResult r;
        if (!availability_.ok) {
            r.error = availability_.reason;
            return r;
        }
        if (out.size() != in.size()) {
            r.error = "output has " + std::to_string(out.size()) + " elements, input " + std::to_string(in.size());
            return r;
        }
        if (in.size() == 0) {
            r.ok = true;
            return r;
        }
        try {
            std::lock_guard<std::mutex> lock(mutex_);  // the cached primitive and the stream are shared state
            prepare(op, in.size());
            const dnnl::engine& eng = *cpu_engine().engine;
            // oneDNN only reads the source, but its memory object takes a non-const handle.
            dnnl::memory src(cached_md_, eng, const_cast<float*>(in.ptr()));
            dnnl::memory dst(cached_md_, eng, out.ptr());
            const int64_t t0 = now_ns();
            cached_->execute(*stream_, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
            stream_->wait();
            r.t.compute_ns = now_ns() - t0;
            r.ok = true;
        } catch (const dnnl::error& e) {
            r.error = error_text(e);
        } catch (const std::exception& e) {
            r.error = std::string("cpu-onednn failed: ") + e.what();
        }
        return r;
    }

    LimitResult bandwidth_limit(std::size_t bytes) override { return measure_parallel_copy_limit(bytes); }

    // [SECTION] convolution: convolution_forward with the layouts oneDNN prefers (usually blocked,
    // e.g. nChw16c). Our NCHW input and KCRS filters are reordered into them before the clock
    // starts and the result reordered back after it stops: the time is the convolution alone,
    // which is what oneDNN users pay when a whole network stays in the blocked layout. cpu-parallel's
    // channel kernel is timed the same way (cpu_conv2d.h, Conv2dStaged).
    bool supports_conv2d(const Conv2dDesc& d) const override { return availability_.ok && d.validate().empty(); }

    RunResult run_conv2d(const Conv2dDesc& d, const Tensor& input, const Tensor& filters, Tensor& output) override {
        RunResult r;
        if (!availability_.ok) {
            r.error = availability_.reason;
            return r;
        }
        r.error = conv2d_size_error(d, input, filters, output);
        if (!r.error.empty()) return r;
        try {
            std::lock_guard<std::mutex> lock(mutex_);
            prepare_conv(d);
            const dnnl::engine& eng = *cpu_engine().engine;
            ConvCache& c = *conv_;
            dnnl::memory user_src(c.user_src, eng, const_cast<float*>(input.ptr()));
            dnnl::memory user_wei(c.user_wei, eng, const_cast<float*>(filters.ptr()));
            dnnl::memory user_dst(c.user_dst, eng, output.ptr());
            dnnl::memory src = c.src_reorder ? c.src_mem : user_src;
            dnnl::memory wei = c.wei_reorder ? c.wei_mem : user_wei;
            dnnl::memory dst = c.dst_reorder ? c.dst_mem : user_dst;
            if (c.src_reorder) c.src_reorder->execute(*stream_, user_src, src);
            if (c.wei_reorder) c.wei_reorder->execute(*stream_, user_wei, wei);
            stream_->wait();
            const int64_t t0 = now_ns();
            c.conv->execute(*stream_, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
            stream_->wait();
            r.t.compute_ns = now_ns() - t0;
            if (c.dst_reorder) {
                c.dst_reorder->execute(*stream_, dst, user_dst);
                stream_->wait();
            }
            r.ok = true;
        } catch (const dnnl::error& e) {
            r.error = error_text(e);
        } catch (const std::exception& e) {
            r.error = std::string("cpu-onednn conv2d failed: ") + e.what();
        }
        return r;
    }

    std::string conv2d_implementation(const Conv2dDesc& d) const override {
        if (!availability_.ok) return availability_.reason;
        std::lock_guard<std::mutex> lock(mutex_);
        if (conv_ && same_shape(conv_->desc, d)) return conv_->implementation;
        try {
            return make_conv_pd(d).impl_info_str();
        } catch (const dnnl::error& e) {
            return error_text(e);
        }
    }

private:
    struct ConvCache {
        Conv2dDesc desc;
        std::optional<dnnl::convolution_forward> conv;
        dnnl::memory::desc user_src, user_wei, user_dst;
        std::optional<dnnl::reorder> src_reorder, wei_reorder, dst_reorder;
        dnnl::memory src_mem, wei_mem, dst_mem;  // blocked copies, used when a reorder exists
        std::string implementation;
    };

    static bool same_shape(const Conv2dDesc& a, const Conv2dDesc& b) {
        return a.batch == b.batch && a.channels == b.channels && a.height == b.height && a.width == b.width &&
               a.filters == b.filters && a.kernel == b.kernel && a.padding == b.padding && a.stride == b.stride;
    }

    static dnnl::convolution_forward::primitive_desc make_conv_pd(const Conv2dDesc& d) {
        using tag = dnnl::memory::format_tag;
        const auto f32 = dnnl::memory::data_type::f32;
        const dnnl::memory::desc src({d.batch, d.channels, d.height, d.width}, f32, tag::any);
        const dnnl::memory::desc wei({d.filters, d.channels, d.kernel, d.kernel}, f32, tag::any);
        const dnnl::memory::desc dst({d.batch, d.filters, d.out_height(), d.out_width()}, f32, tag::any);
        const dnnl::memory::dims strides = {d.stride, d.stride}, pad = {d.pad(), d.pad()};
        const dnnl::convolution_forward::desc cd(dnnl::prop_kind::forward_inference,
                                                 dnnl::algorithm::convolution_direct, src, wei, dst, strides, pad,
                                                 pad);
        return dnnl::convolution_forward::primitive_desc(cd, *cpu_engine().engine);
    }

    // One primitive per shape, built on the first run and reused while the shape stays (the
    // measurement loop), so no sample pays oneDNN's JIT compilation.
    void prepare_conv(const Conv2dDesc& d) {
        if (!stream_) stream_.emplace(*cpu_engine().engine);
        if (conv_ && same_shape(conv_->desc, d)) return;
        conv_.reset();
        using tag = dnnl::memory::format_tag;
        const auto f32 = dnnl::memory::data_type::f32;
        const dnnl::engine& eng = *cpu_engine().engine;
        auto c = std::make_unique<ConvCache>();
        c->desc = d;
        const auto pd = make_conv_pd(d);
        c->conv.emplace(pd);
        c->implementation = pd.impl_info_str();
        c->user_src = dnnl::memory::desc({d.batch, d.channels, d.height, d.width}, f32, tag::nchw);
        c->user_wei = dnnl::memory::desc({d.filters, d.channels, d.kernel, d.kernel}, f32, tag::oihw);
        c->user_dst = dnnl::memory::desc({d.batch, d.filters, d.out_height(), d.out_width()}, f32, tag::nchw);
        if (pd.src_desc() != c->user_src) {
            c->src_mem = dnnl::memory(pd.src_desc(), eng);
            c->src_reorder.emplace(dnnl::memory(c->user_src, eng, nullptr), c->src_mem);
            c->implementation += " (input reordered to oneDNN's layout, not timed)";
        }
        if (pd.weights_desc() != c->user_wei) {
            c->wei_mem = dnnl::memory(pd.weights_desc(), eng);
            c->wei_reorder.emplace(dnnl::memory(c->user_wei, eng, nullptr), c->wei_mem);
        }
        if (pd.dst_desc() != c->user_dst) {
            c->dst_mem = dnnl::memory(pd.dst_desc(), eng);
            c->dst_reorder.emplace(c->dst_mem, dnnl::memory(c->user_dst, eng, nullptr));
        }
        conv_ = std::move(c);
    }

    std::unique_ptr<ConvCache> conv_;

    void prepare(const OpDesc& op, int64_t n) {
        if (!stream_) stream_.emplace(*cpu_engine().engine);
        if (cached_ && cached_act_ == op.activation && cached_alpha_ == alpha_for(op) && cached_n_ == n) return;
        const auto pd = make_pd(op, n);
        cached_.emplace(pd);
        cached_md_ = pd.src_desc();
        cached_act_ = op.activation;
        cached_alpha_ = alpha_for(op);
        cached_n_ = n;
    }

    Availability availability_;
    std::string description_;
    mutable std::mutex mutex_;
    std::optional<dnnl::stream> stream_;
    std::optional<dnnl::eltwise_forward> cached_;
    dnnl::memory::desc cached_md_;
    Activation cached_act_ = Activation::Relu;
    float cached_alpha_ = 0.0f;
    int64_t cached_n_ = -1;
};

}  // namespace

std::unique_ptr<Backend> make_onednn_backend() { return std::make_unique<OnednnBackend>(); }

std::string onednn_implementation(const OpDesc& op, int64_t elements) {
    const Engine& e = cpu_engine();
    if (!e.engine) return e.failure;
    if (elements <= 0) return "no elements";
    try {
        return make_pd(op, elements).impl_info_str();
    } catch (const dnnl::error& err) {
        return error_text(err);
    }
}

}  // namespace gpulab::cpu
