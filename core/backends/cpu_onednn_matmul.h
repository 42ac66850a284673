// oneDNN's matrix product as the peer of our BF16 kernel (issue 29 part 4): the dnnl matmul
// primitive with FP32 inputs, or BF16 inputs (src and weights) and an FP32 output, C = A x B, all
// row-major. Which kernel oneDNN picked is its impl_info_str ("brg:avx512_core_amx_bf16"), and for BF16
// whether that kernel has BF16 arithmetic at all: native (AMX tiles, TDPBF16PS; or AVX512_BF16,
// VDPBF16PS) or emulated (BF16 widened to FP32 and multiplied in FP32: an AVX2 or plain AVX-512 CPU,
// or oneDNN capped there by GPULAB_ISA / DNNL_MAX_CPU_ISA).
//
// BF16 inputs are given as bit patterns, rounded by the caller (cpu::round_to_bf16_bits: core's round
// to nearest even, the same values our kernel multiplies), so the time is the product alone.
// Built only with oneDNN (core/CMakeLists.txt); otherwise the stand-in (cpu_onednn_matmul_absent.cpp)
// says why. Verified by tests/test_gemm_bf16.cpp: within core::matmul_error_bound of the reference.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ops/fp_formats.h"
#include "runtime/availability.h"

namespace gpulab::cpu {

// How oneDNN runs a BF16 product, from its implementation string: "native: AMX tiles (TDPBF16PS)",
// "native: VDPBF16PS (AVX512_BF16)" or "emulated: no BF16 instruction in <impl>, BF16 widened to FP32".
std::string onednn_bf16_kind(const std::string& implementation);
bool onednn_bf16_native(const std::string& implementation);

// One primitive for one shape and input format, built once (oneDNN's JIT) and run many times.
class OnednnMatmul {
public:
    // inputs: Fp32 or Bf16 (others are refused: availability says so).
    OnednnMatmul(core::FpFormat inputs, int64_t m, int64_t n, int64_t k);
    ~OnednnMatmul();
    OnednnMatmul(const OnednnMatmul&) = delete;
    OnednnMatmul& operator=(const OnednnMatmul&) = delete;

    // !ok: why it cannot run (oneDNN not built in, a format it has no matmul for, oneDNN's error).
    const core::Availability& availability() const { return availability_; }
    // oneDNN's impl_info_str ("brg:avx512_core_amx_bf16"), "" when unavailable.
    const std::string& implementation() const { return implementation_; }
    // BF16: the kernel multiplies in BF16 (AMX or AVX512_BF16); FP32: true.
    bool native() const { return native_; }
    // For a table row: "oneDNN brg:avx512_core_amx_bf16, native: AMX tiles (TDPBF16PS)".
    const std::string& path() const { return path_; }

    // C = A x B. Fp32: a and b point at floats; Bf16: at uint16_t BF16 bit patterns. Returns "" or an error.
    std::string run(const void* a, const void* b, float* c);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
    core::Availability availability_;
    std::string implementation_, path_;
    bool native_ = false;
};

}  // namespace gpulab::cpu
