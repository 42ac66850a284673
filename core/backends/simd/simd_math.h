// Vectorised activations on one core: the SIMD half of cpu-parallel, callable on its own so the
// SIMD-vs-MIMD lesson can time "one core, one element at a time" (cpu::activation_reference)
// against "one core, 16 elements per instruction" (activation_simd) and then against all cores.
//
// The instruction set is picked once at run time (never -march=native, so the same binary runs
// on any x86-64): AVX-512 if the CPU and OS support it, else AVX2+FMA, else the SSE2 baseline
// (4-wide vectors; NEON on ARM). GPULAB_ISA=avx512|avx2|baseline forces one (`gpulab bench --isa`
// sets it), so an AVX-512 machine can measure what an AVX2 laptop runs; a request this CPU cannot
// honour is refused with a sentence (isa_choice().error), never silently replaced.
//
// Accuracy against cpu-scalar: ReLU / leaky ReLU bit-exact; sigmoid / tanh / GELU within
// abs 2e-6 + rel 1e-5 (simd_kernels_impl.h explains the math). Verified by
// tests/test_cpu_backends.cpp and tests/test_activation_math.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/op_desc.h"

namespace gpulab::cpu {

enum class SimdIsa { Baseline, Avx2Fma, Avx512 };

// "AVX-512", "AVX2+FMA", "SSE2" (or "portable 4-wide" off x86).
std::string_view simd_isa_name(SimdIsa isa);
// Floats per vector instruction: 16, 8, 4.
int simd_isa_lanes(SimdIsa isa);
// Compiled into this binary and supported by this CPU.
bool simd_isa_usable(SimdIsa isa);
// Every usable ISA, baseline first.
std::vector<SimdIsa> usable_simd_isas();

// What GPULAB_ISA asked for, checked against the CPU. `error` is a sentence for the user when the
// request cannot be honoured (unknown name, or an ISA this CPU or build lacks); `isa` is then the
// best usable one, so callers that go on anyway stay safe.
struct IsaChoice {
    SimdIsa isa = SimdIsa::Baseline;
    bool forced = false;      // GPULAB_ISA was set (and valid)
    std::string request;      // the variable's text, "" when unset
    std::string error;
};
// Pure, for tests: `request` is GPULAB_ISA's value ("" = unset), `usable` what the CPU has.
IsaChoice resolve_isa_request(std::string_view request, const std::vector<SimdIsa>& usable);
// This process's choice: GPULAB_ISA read once, on the first call.
const IsaChoice& isa_choice();
// "AVX2+FMA (forced by GPULAB_ISA=avx2)" or "AVX-512 (the best this CPU has)": for info, bench
// records and export captions.
std::string isa_summary();

// The ISA activation_simd runs: isa_choice().isa.
SimdIsa best_simd_isa();
std::string_view simd_isa();

// Single-threaded, vectorised: out[i] = f(in[i]) for i < n. `in` may equal `out`; any alignment.
// streaming_stores: write the output with non-temporal stores that bypass the cache; faster for
// outputs much larger than the cache, slower when the result is read again soon.
void activation_simd(const core::OpDesc& op, const float* in, float* out, int64_t n, bool streaming_stores = false);
// The same with a chosen ISA; returns false (and writes nothing) when that ISA is not usable.
bool activation_simd_with(SimdIsa isa, const core::OpDesc& op, const float* in, float* out, int64_t n,
                          bool streaming_stores = false);
// A copy through the same vector loop and stores as the activations (the bandwidth yardstick).
void copy_simd(const float* in, float* out, int64_t n, bool streaming_stores);

}  // namespace gpulab::cpu
