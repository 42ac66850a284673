// The body of train_gemm (see train_gemm.h), included by one .cpp per instruction set
// (gemm_isa_*.cpp), each compiled with its own flags by core/CMakeLists.txt, like the activation
// kernels (simd_kernels_impl.h). GCC vector extensions sized per file: before the include, each
// file defines GPULAB_GEMM_VEC_FLOATS (floats in one register: 16 AVX-512, 8 AVX2, 4 SSE2) and
// GPULAB_GEMM_ROWS (rows of C in registers). A block of C is ROWS rows x 2 registers: 12 x 32 on
// AVX-512 (24 of 32 registers), 6 x 16 on AVX2 and 6 x 8 on SSE2 (12 of 16). Each step of the
// inner dimension loads two B vectors and broadcasts ROWS values of A, for 2 x ROWS FMAs.
// (One source used to serve all three with a 16-float type: on AVX2 that is a pair of registers,
// GCC spilled the accumulators to the stack and the product ran at a tenth of AVX-512's speed.)
#pragma once

#include <cstdint>
#include <cstring>

#include "gemm_isa.h"

// An unnamed namespace: each gemm_isa_*.cpp gets its own copy, compiled with its own flags. (Inline
// functions with external linkage would be merged by the linker, and one ISA's code could run for all.)
// The 64-byte vector type never crosses a call boundary that is not inlined in this file, so GCC's
// note that its calling convention differs between instruction sets does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace gpulab::train::gemm_detail {
namespace {

constexpr int kLanes = GPULAB_GEMM_VEC_FLOATS;
constexpr int kRows = GPULAB_GEMM_ROWS;     // rows of C per block
constexpr std::int64_t kCols = 2 * kLanes;  // columns of C per block: two registers
typedef float vec __attribute__((vector_size(kLanes * sizeof(float))));

inline vec load(const float* p) {
    vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store(float* p, vec v) { std::memcpy(p, &v, sizeof v); }

// One block of `R` rows x `V` registers of C (V = 1 or 2); b points at the block's first column of
// B's row 0, row stride ldb.
template <int R, int V>
inline __attribute__((always_inline)) void block(std::int64_t k, const float* a, std::int64_t a_row, std::int64_t a_col,
                                                 const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
                                                 bool accumulate) {
    vec acc[R][V];
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) acc[i][v] = accumulate ? load(c + i * ldc + v * kLanes) : vec{};
    for (std::int64_t m = 0; m < k; ++m) {
        vec bv[V];
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) bv[v] = load(b + m * ldb + v * kLanes);
#pragma GCC unroll 16
        for (int i = 0; i < R; ++i) {
            const float x = a[i * a_row + m * a_col];
#pragma GCC unroll 2
            for (int v = 0; v < V; ++v) acc[i][v] += x * bv[v];
        }
    }
#pragma GCC unroll 16
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) store(c + i * ldc + v * kLanes, acc[i][v]);
}

// The last rows (fewer than kRows): one block of exactly `left` rows, R counting down to find it.
template <int R, int V>
inline __attribute__((always_inline)) void row_tail(std::int64_t left, std::int64_t k, const float* a,
                                                    std::int64_t a_row, std::int64_t a_col, const float* b,
                                                    std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate) {
    if constexpr (R > 0) {
        if (left == R)
            block<R, V>(k, a, a_row, a_col, b, ldb, c, ldc, accumulate);
        else
            row_tail<R - 1, V>(left, k, a, a_row, a_col, b, ldb, c, ldc, accumulate);
    }
}

// All row blocks of one column block of V registers.
template <int V>
inline __attribute__((always_inline)) void column_block(std::int64_t rows, std::int64_t k, const float* a,
                                                        std::int64_t a_row, std::int64_t a_col, const float* b,
                                                        std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate) {
    std::int64_t i = 0;
    for (; i + kRows <= rows; i += kRows)
        block<kRows, V>(k, a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, accumulate);
    row_tail<kRows - 1, V>(rows - i, k, a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, accumulate);
}

void gemm_kernel(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a, std::int64_t a_row,
                 std::int64_t a_col, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate) {
    std::int64_t j = 0;
    for (; j + kCols <= cols; j += kCols) column_block<2>(rows, k, a, a_row, a_col, b + j, ldb, c + j, ldc, accumulate);
    if (j + kLanes <= cols) {
        column_block<1>(rows, k, a, a_row, a_col, b + j, ldb, c + j, ldc, accumulate);
        j += kLanes;
    }
    if (j == cols) return;
    // The last, narrower column block: B's columns and C's are copied into one-register-wide
    // scratch (zero padded), so the same register block runs; only the valid columns are written back.
    const std::int64_t w = cols - j;
    // The scratch comes from train_gemm.cpp, compiled for every CPU: a std::vector used here would
    // be instantiated with this file's instruction set as a weak symbol the linker may keep for the
    // whole program (arch.isa_objects_keep_wide_code found its _M_fill_assign in the ASan build).
    float* b_pad = gemm_scratch(0, k * kLanes);
    float* c_pad = gemm_scratch(1, rows * kLanes);
    std::memset(b_pad, 0, static_cast<std::size_t>(k * kLanes) * sizeof(float));  // 0.0f is all zero bits
    std::memset(c_pad, 0, static_cast<std::size_t>(rows * kLanes) * sizeof(float));
    for (std::int64_t m = 0; m < k; ++m) std::memcpy(b_pad + m * kLanes, b + m * ldb + j, w * sizeof(float));
    if (accumulate)
        for (std::int64_t i = 0; i < rows; ++i) std::memcpy(c_pad + i * kLanes, c + i * ldc + j, w * sizeof(float));
    column_block<1>(rows, k, a, a_row, a_col, b_pad, kLanes, c_pad, kLanes, accumulate);
    for (std::int64_t i = 0; i < rows; ++i) std::memcpy(c + i * ldc + j, c_pad + i * kLanes, w * sizeof(float));
}

}  // namespace
}  // namespace gpulab::train::gemm_detail
