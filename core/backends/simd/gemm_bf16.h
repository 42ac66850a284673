// Our BF16 matrix product on the CPU (issue 29 part 4): C (FP32, m x n) = A (m x k) x B (k x n), A and
// B given as FP32 and rounded to BF16 while they are packed, the products summed in FP32 by
// AVX512_BF16's VDPBF16PS. That instruction takes two BF16 pairs per 32-bit lane and does
//
//     c[lane] += a[2 lane] * b[2 lane] + a[2 lane + 1] * b[2 lane + 1]      (16 lanes, 32 products)
//
// so one instruction does twice the multiply-adds of an FP32 FMA of the same width. Whether that is
// faster depends on how many of them a core issues per cycle: on the Sapphire-Rapids-class Xeon of
// docs/benchmarks.md (2026-11-26) VDPBF16PS issues once every 2 cycles and FMA twice per cycle, so
// BF16 through it has half FP32's peak (32 vs 64 FLOP per cycle per core); oneDNN's BF16 is fast
// there because it uses AMX tiles instead. On a CPU without AVX512_BF16 (AVX2, or AVX-512 without
// BF16) there is no BF16 arithmetic at all: BF16 numbers would be widened to FP32 and multiplied with
// ordinary FP32 FMAs, the same work as FP32 plus the conversions, so slower, never faster.
// gemm_bf16_availability() says which, in a sentence; gemm_bf16() refuses to run without it.
//
// Numbers: each input is rounded to nearest, ties to even (core::round_to(Bf16, x), bit for bit:
// tests/test_gemm_bf16.cpp checks the packer against core::bf16_bits), the products of two BF16
// numbers are exact in FP32, and the running sum of each output is FP32, k from 0 upwards, two
// products per step. That is core::matmul_reduced({Bf16, Fp32}) with a different order of the
// roundings inside each pair, so results agree within core::matmul_error_bound, not bit for bit.
// VDPBF16PS treats BF16 subnormals (below 2^-126) as zero and flushes subnormal sums to zero (its
// fixed DAZ/FTZ, whatever MXCSR says); the bound holds for data in the normal range.
//
// Threaded over cpu::ThreadPool::shared() (all cores). The kernel, its packing and its picture are
// in gemm_bf16_avx512bf16.cpp (compiled with -mavx512bf16, picked at run time: never
// -march=native). Verified by tests/test_gemm_bf16.cpp; speed: `gpulab bench --suite tensor`.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/availability.h"
#include "simd_math.h"

namespace gpulab::cpu {

// ok when our kernel can run here (this build has it, the CPU has AVX512_BF16, GPULAB_ISA does not
// cap below AVX-512); otherwise the reason, a sentence for the student (why there is no native BF16
// arithmetic and why BF16 would then be slower, not faster).
core::Availability gemm_bf16_availability();
// The same decision from its inputs, for tests: `built` this binary has the kernel, `cpu_has_bf16` the
// CPU (and OS) has AVX512_BF16, `choice` what GPULAB_ISA asked for.
core::Availability gemm_bf16_availability_for(bool built, bool cpu_has_bf16, const IsaChoice& choice);
// Whether the CPU itself (ignoring GPULAB_ISA) has AVX512_BF16, and AMX-BF16 (tiles; not used by our kernel).
bool cpu_has_avx512_bf16();
bool cpu_has_amx_bf16();

// How our kernel computes: "native VDPBF16PS (AVX512_BF16)".
const char* gemm_bf16_path();

// C = round_bf16(A) x round_bf16(B) with FP32 sums, all row-major and dense (lda = k, ldb = ldc = n);
// c is overwritten. Returns false, writing nothing, when gemm_bf16_availability() is not ok.
bool gemm_bf16(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);

// out[i] = core::bf16_bits(in[i]) (round to nearest even, NaN kept quiet), vectorised where the kernel
// can run, else the scalar core::bf16_bits: the packer's rounding, exposed for tests and for feeding
// oneDNN the same BF16 inputs.
void round_to_bf16_bits(const float* in, uint16_t* out, int64_t count);

// The FP32 product C = A x B of cpu-parallel: the training GEMM (train_gemm.h, AVX-512 / AVX2 / SSE2 as
// the CPU and GPULAB_ISA allow) run on tasks of C spread over the same thread pool, in the same
// 96 x 256 tasks as gemm_bf16. Unlike gemm_bf16 it packs nothing and does not block k, so past the
// caches (1024^3) it slows down: part of any BF16 / FP32 ratio of ours there is that, not the instruction.
void gemm_fp32_parallel(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k);

}  // namespace gpulab::cpu
