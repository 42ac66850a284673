// oneDNN's matmul primitive, FP32 or BF16 inputs with an FP32 output (see cpu_onednn_matmul.h).
// The primitive is built in the constructor (its JIT compiled once) on the engine cpu-onednn uses;
// run() wraps the caller's arrays in place (no copies) and waits for oneDNN's OpenMP threads.
// Verified by tests/test_gemm_bf16.cpp ("oneDNN ..." cases).
#include "cpu_onednn_matmul.h"

#include <exception>
#include <optional>
#include <string>

#include <dnnl.hpp>

#include "cpu_onednn_engine.h"

namespace gpulab::cpu {

struct OnednnMatmul::Impl {
    std::optional<dnnl::matmul> primitive;
    std::optional<dnnl::stream> stream;
    dnnl::memory::desc a, b, c;
};

OnednnMatmul::OnednnMatmul(core::FpFormat inputs, int64_t m, int64_t n, int64_t k) {
    if (inputs != core::FpFormat::Fp32 && inputs != core::FpFormat::Bf16) {
        availability_ = {false, std::string("oneDNN's matmul is run here with FP32 or BF16 inputs, not ") +
                                    core::format_label(inputs)};
        return;
    }
    if (m <= 0 || n <= 0 || k <= 0) {
        availability_ = {false, "oneDNN's matmul needs m, n and k of at least 1"};
        return;
    }
    const onednn_detail::Engine& e = onednn_detail::cpu_engine();
    if (!e.engine) {
        availability_ = {false, e.failure};
        return;
    }
    try {
        using dt = dnnl::memory::data_type;
        using tag = dnnl::memory::format_tag;
        const dt in = inputs == core::FpFormat::Bf16 ? dt::bf16 : dt::f32;
        auto impl = std::make_unique<Impl>();
        impl->a = dnnl::memory::desc({m, k}, in, tag::ab);
        impl->b = dnnl::memory::desc({k, n}, in, tag::ab);
        impl->c = dnnl::memory::desc({m, n}, dt::f32, tag::ab);
        const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(impl->a, impl->b, impl->c), *e.engine);
        implementation_ = pd.impl_info_str();
        impl->primitive.emplace(pd);
        impl->stream.emplace(*e.engine);
        impl_ = std::move(impl);
    } catch (const dnnl::error& err) {
        availability_ = {false, inputs == core::FpFormat::Bf16
                                    ? "oneDNN " + onednn_detail::version_string() +
                                          " has no BF16 matmul for this CPU" +
                                          (e.isa_cap.empty() ? std::string() : " as capped (" + e.isa_cap + ")") +
                                          ": it needs AVX-512 at least, and only AVX512_BF16 or AMX multiply BF16 "
                                          "natively (" + onednn_detail::error_text(err) + ")"
                                    : onednn_detail::error_text(err)};
        return;
    }
    native_ = inputs == core::FpFormat::Fp32 || onednn_bf16_native(implementation_);
    path_ = "oneDNN " + implementation_;
    if (inputs == core::FpFormat::Bf16) path_ += ", " + onednn_bf16_kind(implementation_);
    if (!e.isa_cap.empty()) path_ += " (" + e.isa_cap + ")";
    availability_ = {true, path_};
}

OnednnMatmul::~OnednnMatmul() = default;

std::string OnednnMatmul::run(const void* a, const void* b, float* c) {
    if (!availability_.ok) return availability_.reason;
    try {
        const dnnl::engine& eng = *onednn_detail::cpu_engine().engine;
        // oneDNN only reads the inputs, but its memory objects take non-const handles.
        dnnl::memory ma(impl_->a, eng, const_cast<void*>(a));
        dnnl::memory mb(impl_->b, eng, const_cast<void*>(b));
        dnnl::memory mc(impl_->c, eng, c);
        impl_->primitive->execute(*impl_->stream, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, mb}, {DNNL_ARG_DST, mc}});
        impl_->stream->wait();
    } catch (const dnnl::error& err) {
        return onednn_detail::error_text(err);
    } catch (const std::exception& err) {
        return std::string("oneDNN matmul failed: ") + err.what();
    }
    return "";
}

}  // namespace gpulab::cpu
