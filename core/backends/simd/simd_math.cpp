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

bool simd_isa_usable(SimdIsa isa) {
    // Asked per 64 KiB chunk by cpu-parallel: worked out once (the CPU does not change).
    static const bool usable[3] = {kernel_for(SimdIsa::Baseline) != nullptr && cpu_has(SimdIsa::Baseline),
                                   kernel_for(SimdIsa::Avx2Fma) != nullptr && cpu_has(SimdIsa::Avx2Fma),
                                   kernel_for(SimdIsa::Avx512) != nullptr && cpu_has(SimdIsa::Avx512)};
    const int i = static_cast<int>(isa);
    return i >= 0 && i < 3 && usable[i];
}

std::vector<SimdIsa> usable_simd_isas() {
    std::vector<SimdIsa> list;
    for (SimdIsa isa : {SimdIsa::Baseline, SimdIsa::Avx2Fma, SimdIsa::Avx512}) {
        if (simd_isa_usable(isa)) list.push_back(isa);
    }
    return list;
}

IsaChoice resolve_isa_request(std::string_view request, const std::vector<SimdIsa>& usable) {
    IsaChoice c;
    c.request = std::string(request);
    // The best usable ISA: the default, and the fallback when a request is refused.
    for (SimdIsa isa : usable) {
        if (static_cast<int>(isa) > static_cast<int>(c.isa)) c.isa = isa;
    }
    if (request.empty()) return c;
    SimdIsa wanted;
    if (request == "avx512") {
        wanted = SimdIsa::Avx512;
    } else if (request == "avx2") {
        wanted = SimdIsa::Avx2Fma;
    } else if (request == "baseline" || request == "sse2") {
        wanted = SimdIsa::Baseline;
    } else {
        c.error = "GPULAB_ISA=" + c.request + " is not an instruction set gpulab knows: use avx512, avx2 or baseline";
        return c;
    }
    for (SimdIsa isa : usable) {
        if (isa == wanted) {
            c.isa = wanted;
            c.forced = true;
            return c;
        }
    }
    std::string have;
    for (SimdIsa isa : usable) have += (have.empty() ? "" : ", ") + std::string(simd_isa_name(isa));
    c.error = "GPULAB_ISA=" + c.request + " asks for " + std::string(simd_isa_name(wanted)) +
              ", which this CPU (or this build) does not have; it has " + have;
    return c;
}

const IsaChoice& isa_choice() {
    static const IsaChoice choice = [] {
        const char* env = std::getenv("GPULAB_ISA");
        return resolve_isa_request(env == nullptr ? std::string_view() : std::string_view(env), usable_simd_isas());
    }();
    return choice;
}

std::string isa_summary() {
    const IsaChoice& c = isa_choice();
    const std::string name(simd_isa_name(c.isa));
    if (c.forced) return name + " (forced by GPULAB_ISA=" + c.request + ")";
    if (!c.error.empty()) return name + " (GPULAB_ISA=" + c.request + " refused)";
    return name + " (the best this CPU has)";
}

SimdIsa best_simd_isa() { return isa_choice().isa; }

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
