// Our BF16 matrix products on the CPU (issue 29 part 4): C (FP32, m x n) = A (m x k) x B (k x n), A and
// B given as FP32 and rounded to BF16 while they are packed, the products summed in FP32. Two kernels,
// one per instruction that multiplies BF16 numbers:
//
//   AVX512_BF16's VDPBF16PS: two BF16 pairs per 32-bit lane,
//       c[lane] += a[2 lane] * b[2 lane] + a[2 lane + 1] * b[2 lane + 1]      (16 lanes, 32 products)
//     twice the multiply-adds of an FP32 FMA of the same width. Whether that is faster depends on how
//     many a core issues per cycle: on the Sapphire-Rapids-class Xeon of docs/benchmarks.md
//     (2026-11-26) VDPBF16PS issues once every 2 cycles and FMA twice per cycle, so BF16 through it has
//     half FP32's peak (32 vs 64 FLOP per cycle per core).
//   AMX's TDPBF16PS: C[16 x 16] += A[16 x 32] x B[32 x 16] on tile registers, 8,192 multiply-adds in
//     one instruction; one core of that Xeon issued 3.25 TFLOP/s of them (about 1,000 FLOP per cycle
//     near 3 GHz, some 16 times its FP32 FMAs). The CPU's tensor core, and what oneDNN's BF16 uses
//     where it is fast.
//
// On a CPU without either (AVX2, or AVX-512 without BF16) there is no BF16 arithmetic at all: BF16
// numbers would be widened to FP32 and multiplied with ordinary FP32 FMAs, the same work as FP32 plus
// the conversions, so slower, never faster. gemm_bf16_availability() says which, in a sentence;
// gemm_bf16() refuses to run without it.
//
// Numbers: each input is rounded to nearest, ties to even (core::round_to(Bf16, x), bit for bit:
// tests/test_gemm_bf16.cpp checks the packer against core::bf16_bits), the products of two BF16
// numbers are exact in FP32, and the running sum of each output is FP32, k from 0 upwards (in pairs
// for VDPBF16PS, in runs of 32 inside one TDPBF16PS, whose inner order is the hardware's). That is
// core::matmul_reduced({Bf16, Fp32}) with a different order of the roundings, so results agree within
// core::matmul_error_bound, not bit for bit. Both instructions treat BF16 subnormals (below 2^-126) as
// zero and flush subnormal sums to zero (their fixed DAZ/FTZ, whatever MXCSR says); the bound holds
// for data in the normal range.
//
// Threaded over cpu::ThreadPool::shared() (all cores). The kernels, their packing and their pictures
// are in gemm_bf16_avx512bf16.cpp and gemm_bf16_amx.cpp (each compiled with its own flags, picked at
// run time: never -march=native). Verified by tests/test_gemm_bf16.cpp; speed: `gpulab bench --suite tensor`.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/availability.h"
#include "simd_math.h"

namespace gpulab::cpu {

// The instruction a kernel multiplies with.
enum class Bf16Instruction { Amx, Vdpbf16ps };

// ok when that kernel can run here (this build has it, the CPU has the instruction, for AMX Linux lets
// this process use the tiles, GPULAB_ISA does not cap below AVX-512), with its path as the reason;
// otherwise why not, a sentence for the student (for VDPBF16PS also why BF16 would then be slower).
core::Availability gemm_bf16_availability(Bf16Instruction which);
// The kernel gemm_bf16() without a choice uses: AMX where it can run, else VDPBF16PS; not ok (with
// VDPBF16PS's reason, which explains what a CPU without BF16 arithmetic does) when neither can.
core::Availability gemm_bf16_availability();
// The same decisions from their inputs, for tests: `built` this binary has the kernel, `cpu_has` the
// CPU has the instruction, `os_permits` (AMX) Linux granted the tiles, `choice` what GPULAB_ISA asked for.
core::Availability gemm_bf16_availability_for(bool built, bool cpu_has_bf16, const IsaChoice& choice);
core::Availability gemm_amx_availability_for(bool built, bool cpu_has_amx, bool os_permits, const IsaChoice& choice);
// Whether the CPU itself (ignoring GPULAB_ISA) has AVX512_BF16, and AMX-BF16 (tiles).
bool cpu_has_avx512_bf16();
bool cpu_has_amx_bf16();
// Whether GPULAB_CPU_HIDE (a comma list: amx, avx512bf16) names `flag`: the stand-in for a CPU
// without those units (an AMD EPYC has AVX-512 but no AMX) that the test suite can run under.
bool cpu_flag_hidden(std::string_view flag);

// How a kernel computes: "native AMX tiles (TDPBF16PS)", "native VDPBF16PS (AVX512_BF16)".
const char* gemm_bf16_path(Bf16Instruction which);

// C = round_bf16(A) x round_bf16(B) with FP32 sums, all row-major and dense (lda = k, ldb = ldc = n);
// c is overwritten. Returns false, writing nothing, when the kernel's availability is not ok.
bool gemm_bf16(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, Bf16Instruction which);
bool gemm_bf16(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);

// out[i] = core::bf16_bits(in[i]) (round to nearest even, NaN kept quiet), vectorised where the kernel
// can run, else the scalar core::bf16_bits: the packer's rounding, exposed for tests and for feeding
// oneDNN the same BF16 inputs.
void round_to_bf16_bits(const float* in, uint16_t* out, int64_t count);

// The FP32 product C = A x B of cpu-parallel, dense row-major, c overwritten: the packed, cache-blocked
// product of gemm_packed.h (AVX-512 / AVX2 / SSE2 as the CPU and GPULAB_ISA allow) on every core of
// cpu::ThreadPool::shared(). It packs both operands and blocks k like the BF16 kernels and the
// libraries do, so a BF16 / FP32 ratio of ours measures the instruction, not a weaker FP32 loop.
void gemm_fp32_parallel(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);

}  // namespace gpulab::cpu
