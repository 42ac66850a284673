// cpu-parallel's FP32 matrix product for large matrices (issue 45): C = A x B (or C += A x B) in the
// structure of BLIS and of Goto's GEMM, the one oneDNN, OpenBLAS and MKL share.
//
// Why hand-written when oneDNN is linked: it is the teaching example. The tensor-cores lesson and
// `gpulab bench --suite tensor` show it rung by rung (gemm_rungs.h: naive loops, loop order, cache
// blocking, packing with a micro-kernel, threads), and the BF16 and GPU speeds are compared with an
// FP32 base that is the libraries' equal, not an easy one. oneDNN stays the library backend
// (cpu-onednn), the fair opponent it is measured against.
//
//   for jc over n, nc columns at a time:                  B panel: kc x nc, in L3 (shared by threads)
//     for pc over k, kc at a time:
//       pack B(pc.., jc..) into micro-panels kc x NR        (threads split the packing)
//       for ic over m, mc rows at a time:   <- threads take these row blocks (rarely split in
//                                              columns too) from the pool, about four per thread
//         pack A(ic.., pc..) into micro-panels MR x kc      A block: mc x kc, in L2 (one per thread)
//         for jr over the panel, NR columns at a time:     B micro-panel: kc x NR, in L1 or L2
//           for ir over the block, MR rows at a time:      A micro-panel: MR x kc, streamed from L2
//             micro-kernel: C(MR x NR) += A panel x B panel, the MR x NR tile in registers
//
// Packing copies each block once into the order the micro-kernel reads it: consecutive addresses
// (no cache line or TLB page half used, no stride the prefetcher loses), aligned, zero-padded at the
// edges so the kernel never branches on a remainder. The micro-kernel keeps an MR x NR tile of C in
// registers (6 x 64 on AVX-512, 4 x 24 on AVX2, 6 x 8 on SSE2) and does MR x NR / lanes FMAs per
// NR / lanes vector loads of B and MR broadcasts of A. The block sizes (gemm_packed_isa_*.cpp) keep
// each operand in the cache level that feeds it fast enough. C is written once per kc run of k.
//
// The instruction set is cpu::best_simd_isa()'s (so GPULAB_ISA=avx2 caps it), each ISA's kernel in
// its own file compiled with its flags. Threads: cpu::ThreadPool::shared(), tasks taken from a shared
// counter so a core that another program slows takes fewer. Sums: each C(i, j) in FP32, k in order
// within a kc run (as the reference sums within core::matmul_error_bound). Verified by
// tests/test_gemm_packed.cpp against a double-precision triple loop (odd shapes, every ISA).
#pragma once

#include <cstdint>

#include "simd_math.h"

namespace gpulab::cpu {

// C(i, j) = [C(i, j) if accumulate] + sum over p < k of A(i, p) B(p, j), i < rows, j < cols, with
// A(i, p) = a[i * a_row + p * a_col] (any strides: a transposed A costs nothing more, packing reads it),
// B(p, j) = b[p * ldb + j], C(i, j) = c[i * ldc + j]. k = 0 leaves C (accumulate) or zeroes it.
// all_cores: tasks on cpu::ThreadPool::shared() (a call from inside one of its tasks runs inline);
// otherwise on the calling thread alone.
void gemm_packed(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a, std::int64_t a_row,
                 std::int64_t a_col, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
                 bool all_cores);

// The same with a chosen instruction set: the widest kernel this build has at or below `isa`; the
// caller checks that the CPU has it (tests run every usable one).
void gemm_packed_with(SimdIsa isa, std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a,
                      std::int64_t a_row, std::int64_t a_col, const float* b, std::int64_t ldb, float* c,
                      std::int64_t ldc, bool accumulate, bool all_cores);

// The shapes the kernel for `isa` was written for: the micro-tile (mr x nr) and the blocks.
struct PackedGemmShape {
    int mr = 0, nr = 0, kc = 0, mc = 0, nc = 0;
};
PackedGemmShape packed_gemm_shape(SimdIsa isa);

// What runs: "AVX-512, 6 x 64 micro-tile" (the kernel cpu::best_simd_isa() picks).
const char* gemm_packed_path();

}  // namespace gpulab::cpu
