// A small single-threaded matrix product for cpu-parallel's training layers (convolution backward
// through im2col, dense layers): C = A * B (or C += A * B), where A may be read with any strides
// (so A can be a transposed view without a copy) and B's rows are contiguous.
//
// Hand-written instead of a BLAS call because Debian's OpenBLAS 0.3.21 mis-detects these CPUs
// (STYLE.md's version traps) and the matrices here are small and oddly shaped (9 to 676 wide):
// a 6-row x 16-column block of C stays in vector registers (6 AVX-512 registers, 12 AVX2) while
// the inner dimension streams through, so each B vector loaded feeds 6 FMAs. The instruction set
// is the one the activation kernels use (cpu::best_simd_isa: AVX-512, AVX2+FMA or SSE2).
// Also the matrix product of cpu-parallel's im2col convolution (core/backends/conv2d/cpu_conv2d_gemm.cpp), so the
// lesson's convolution and training's share one.
// Verified by tests/test_train_layers.cpp against a plain triple loop, odd sizes included.
#pragma once

#include <cstdint>

#include "simd_math.h"

namespace gpulab::train {

// C(i, j) = [C(i, j) if accumulate] + sum over m < k of A(i, m) * B(m, j), for i < rows, j < cols,
// with A(i, m) = a[i * a_row + m * a_col], B(m, j) = b[m * ldb + j], C(i, j) = c[i * ldc + j].
void gemm(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a, std::int64_t a_row,
          std::int64_t a_col, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate);

// The same with a chosen instruction set (the convolution lesson's forced-ISA runs): the widest
// clone this build has at or below `isa`; the caller checks that the CPU has `isa`.
void gemm_with(cpu::SimdIsa isa, std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a,
               std::int64_t a_row, std::int64_t a_col, const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
               bool accumulate);

// The instruction set the clone that runs uses: "AVX-512", "AVX2+FMA" or "SSE2".
const char* gemm_isa();

}  // namespace gpulab::train
