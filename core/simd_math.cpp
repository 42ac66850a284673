// Run-time choice of the SIMD instruction set for activation_simd (see simd_math.h).
// Verified by tests/test_cpu_backends.cpp, which runs every usable ISA against cpu-scalar.
#include "simd_math.h"

#include <cstdlib>
#include <string>

#include "simd_kernels.h"

namespace gpulab::cpu {

namespace {

using simd_detail::KernelFn;

KernelFn kernel_for(SimdIsa isa) {
    switch (isa) {
        case SimdIsa::Baseline: return simd_detail::baseline_kernel();
        case SimdIsa::Avx2Fma: return simd_detail::avx2_kernel();
        case SimdIsa::Avx512: return simd_detail::avx512_kernel();
    }
    return nullptr;
}

bool cpu_has(SimdIsa isa) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    switch (isa) {
        case SimdIsa::Baseline: return true;
        case SimdIsa::Avx2Fma: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
        case SimdIsa::Avx512: return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
    }
    return false;
#else
    return isa == SimdIsa::Baseline;
#endif
}

// GPULAB_SIMD_ISA caps the choice; unknown values are ignored (the default is always safe).
SimdIsa isa_cap() {
    const char* env = std::getenv("GPULAB_SIMD_ISA");
    if (env == nullptr) return SimdIsa::Avx512;
    const std::string v(env);
    if (v == "sse2" || v == "baseline") return SimdIsa::Baseline;
    if (v == "avx2") return SimdIsa::Avx2Fma;
    return SimdIsa::Avx512;
}

SimdIsa choose() {
    const SimdIsa cap = isa_cap();
    for (SimdIsa isa : {SimdIsa::Avx512, SimdIsa::Avx2Fma}) {
        if (static_cast<int>(isa) <= static_cast<int>(cap) && simd_isa_usable(isa)) return isa;
    }
    return SimdIsa::Baseline;
}

int op_code(const core::OpDesc& op) {
    switch (op.activation) {
        case core::Activation::Relu: return simd_detail::kOpRelu;
        case core::Activation::LeakyRelu: return simd_detail::kOpLeakyRelu;
        case core::Activation::Sigmoid: return simd_detail::kOpSigmoid;
        case core::Activation::Tanh: return simd_detail::kOpTanh;
        case core::Activation::Gelu: return simd_detail::kOpGelu;
    }
    return simd_detail::kOpRelu;
}

}  // namespace

std::string_view simd_isa_name(SimdIsa isa) {
    switch (isa) {
        case SimdIsa::Avx512: return "AVX-512";
        case SimdIsa::Avx2Fma: return "AVX2+FMA";
        case SimdIsa::Baseline:
#if defined(__x86_64__) || defined(__i386__)
            return "SSE2";
#else
            return "portable 4-wide";
#endif
    }
    return "?";
}

int simd_isa_lanes(SimdIsa isa) {
    switch (isa) {
        case SimdIsa::Avx512: return 16;
        case SimdIsa::Avx2Fma: return 8;
        case SimdIsa::Baseline: return 4;
    }
    return 1;
}

bool simd_isa_usable(SimdIsa isa) { return kernel_for(isa) != nullptr && cpu_has(isa); }

std::vector<SimdIsa> usable_simd_isas() {
    std::vector<SimdIsa> list;
    for (SimdIsa isa : {SimdIsa::Baseline, SimdIsa::Avx2Fma, SimdIsa::Avx512}) {
        if (simd_isa_usable(isa)) list.push_back(isa);
    }
    return list;
}

SimdIsa best_simd_isa() {
    static const SimdIsa chosen = choose();
    return chosen;
}

std::string_view simd_isa() { return simd_isa_name(best_simd_isa()); }

void activation_simd(const core::OpDesc& op, const float* in, float* out, int64_t n, bool streaming_stores) {
    static const KernelFn kernel = kernel_for(best_simd_isa());
    if (n > 0) kernel(op_code(op), op.leaky_alpha, in, out, n, streaming_stores);
}

bool activation_simd_with(SimdIsa isa, const core::OpDesc& op, const float* in, float* out, int64_t n,
                          bool streaming_stores) {
    if (!simd_isa_usable(isa)) return false;
    if (n > 0) kernel_for(isa)(op_code(op), op.leaky_alpha, in, out, n, streaming_stores);
    return true;
}

void copy_simd(const float* in, float* out, int64_t n, bool streaming_stores) {
    static const KernelFn kernel = kernel_for(best_simd_isa());
    if (n > 0) kernel(simd_detail::kOpCopy, 0.0f, in, out, n, streaming_stores);
}

}  // namespace gpulab::cpu
