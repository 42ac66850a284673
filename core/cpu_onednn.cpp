// cpu-onednn: the activations through oneDNN 2.x eltwise primitives (see cpu_onednn.h).
//
// One engine and stream for the process; the last primitive is kept and reused while the op and
// size stay the same (a measurement loop), so timings are of the kernel, not of its JIT
// compilation. Our tensors are wrapped in place (no copies). oneDNN reports errors as dnnl::error
// exceptions; they stop here and come back as RunResult errors.
// Verified by tests/test_cpu_backends.cpp ("cpu-onednn ..." cases).
#include "cpu_onednn.h"

#include <cstdlib>
#include <exception>
#include <mutex>
#include <optional>
#include <string>

#include <dnnl.hpp>

#include "clock.h"
#include "cpu_limit.h"
#include "memory.h"

namespace gpulab::cpu {

using namespace gpulab::core;

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

std::string version_string() {
    const dnnl_version_t* v = dnnl_version();
    return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

std::string error_text(const dnnl::error& e) {
    return std::string("oneDNN: ") + e.what() + " (status " + std::to_string(static_cast<int>(e.status)) + ")";
}

// One process-wide CPU engine: creating it loads the JIT machinery once.
struct Engine {
    std::optional<dnnl::engine> engine;
    std::string failure;
};

const Engine& cpu_engine() {
    static const Engine e = [] {
        Engine r;
        try {
            r.engine.emplace(dnnl::engine::kind::cpu, 0);
        } catch (const dnnl::error& err) {
            r.failure = error_text(err);
        }
        return r;
    }();
    return e;
}

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
                       onednn_implementation(relu, int64_t{1} << 20);
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

private:
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
    std::mutex mutex_;
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
