// The FP32 matrix product climbed rung by rung (issue 45, item 2): the same C = A x B five ways, each
// adding one idea to the one before, so the tensor-cores lesson and `gpulab bench --suite tensor` can
// show what each idea is worth in GFLOP/s before BF16 and the GPU are compared with the last one.
//
//   1 naive loops        i-j-k: a dot product per C(i, j); walks down B's columns
//   2 loop order         i-k-j: the inner loop runs along rows of B and C, so it vectorises
//   3 cache blocking     the same loops over a block of B that stays in L2
//   4 packing + kernel   gemm_packed.h on one core: blocks copied into the order a register-blocked
//                        micro-kernel reads them, an MR x NR tile of C held in registers
//   5 + threads          the same on every core (cpu::ThreadPool::shared()): cpu-parallel's product
//
// Every rung uses the same instruction set (cpu::best_simd_isa(), so GPULAB_ISA caps all five): the
// loops of rungs 1-3 are compiled in the same per-ISA files as the micro-kernel and vectorised by the
// compiler where it can. Dense row-major: A is m x k, B k x n, C m x n, overwritten. Each rung is
// checked against a double-precision triple loop in tests/test_gemm_packed.cpp, odd shapes included.
#pragma once

#include <array>
#include <cstdint>

#include "simd_math.h"

namespace gpulab::cpu {

enum class GemmRung { NaiveLoops, LoopOrder, CacheBlocked, PackedOneCore, PackedAllCores };

inline constexpr std::array<GemmRung, 5> kGemmRungs = {GemmRung::NaiveLoops, GemmRung::LoopOrder,
                                                       GemmRung::CacheBlocked, GemmRung::PackedOneCore,
                                                       GemmRung::PackedAllCores};

// "naive i-j-k loops", "loop order i-k-j", "cache blocking", "packing + micro-kernel", "+ threads".
const char* gemm_rung_name(GemmRung rung);
// A short id for files and JSON: "naive", "loop-order", "blocked", "packed", "threads".
const char* gemm_rung_id(GemmRung rung);
// What the rung changes, in one sentence for the lesson and the bench.
const char* gemm_rung_idea(GemmRung rung);
// Rungs 1-4 run on one core; the last on all of them.
bool gemm_rung_all_cores(GemmRung rung);

// C = A x B the way `rung` does it, with cpu::best_simd_isa()'s kernels.
void run_gemm_rung(GemmRung rung, const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                   std::int64_t k);
// The same with a chosen instruction set (the widest this build has at or below it; the caller checks
// the CPU has it).
void run_gemm_rung_with(SimdIsa isa, GemmRung rung, const float* a, const float* b, float* c, std::int64_t m,
                        std::int64_t n, std::int64_t k);

// The ceiling each rung is measured against (its fraction of the machine's FMA peak): `steps` steps of
// independent vector FMAs in the micro-kernel's registers, nothing loaded, on the calling thread, on
// best_simd_isa()'s instruction set. Returns the FLOPs done; the caller times it (and runs one on each
// core for the all-cores peak).
double run_fma_burst(std::int64_t steps);
double run_fma_burst_with(SimdIsa isa, std::int64_t steps);

}  // namespace gpulab::cpu
