// The body of train_gemm (see train_gemm.h), included by one .cpp per instruction set
// (gemm_isa_*.cpp), each compiled with its own flags by core/CMakeLists.txt, like the activation
// kernels (simd_kernels_impl.h). GCC vector extensions: a 16-float vector is one AVX-512 register,
// two AVX2 registers or four SSE2 ones, so the one source serves all three.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

// An unnamed namespace: each gemm_isa_*.cpp gets its own copy, compiled with its own flags. (Inline
// functions with external linkage would be merged by the linker, and one ISA's code could run for all.)
// The 64-byte vector type never crosses a call boundary that is not inlined in this file, so GCC's
// note that its calling convention differs between instruction sets does not apply.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace gpulab::train::gemm_detail {
namespace {

typedef float v16 __attribute__((vector_size(64)));
constexpr std::int64_t kCols = 16;  // columns of C per block: one v16
constexpr int kRows = 6;            // rows of C per block

inline v16 load(const float* p) {
    v16 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store(float* p, v16 v) { std::memcpy(p, &v, sizeof v); }

// One block of `R` rows x 16 columns of C; b points at column j0 of B's row 0 with row stride ldb.
template <int R>
inline __attribute__((always_inline)) void block(std::int64_t k, const float* a, std::int64_t a_row,
                                                 std::int64_t a_col, const float* b, std::int64_t ldb, float* c,
                                                 std::int64_t ldc, bool accumulate) {
    v16 acc[R];
    for (int i = 0; i < R; ++i) acc[i] = accumulate ? load(c + i * ldc) : v16{};
    for (std::int64_t m = 0; m < k; ++m) {
        const v16 bv = load(b + m * ldb);
        for (int i = 0; i < R; ++i) acc[i] += a[i * a_row + m * a_col] * bv;
    }
    for (int i = 0; i < R; ++i) store(c + i * ldc, acc[i]);
}

// All row blocks of one 16-wide column block.
inline __attribute__((always_inline)) void column_block(std::int64_t rows, std::int64_t k, const float* a,
                                                        std::int64_t a_row, std::int64_t a_col, const float* b,
                                                        std::int64_t ldb, float* c, std::int64_t ldc,
                                                        bool accumulate) {
    std::int64_t i = 0;
    for (; i + kRows <= rows; i += kRows) block<kRows>(k, a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, accumulate);
    switch (rows - i) {
        case 5: block<5>(k, a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, accumulate); break;
        case 4: block<4>(k, a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, accumulate); break;
        case 3: block<3>(k, a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, accumulate); break;
        case 2: block<2>(k, a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, accumulate); break;
        case 1: block<1>(k, a + i * a_row, a_row, a_col, b, ldb, c + i * ldc, ldc, accumulate); break;
        default: break;
    }
}

void gemm_kernel(
    std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a, std::int64_t a_row, std::int64_t a_col,
    const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate) {
    std::int64_t j = 0;
    for (; j + kCols <= cols; j += kCols) column_block(rows, k, a, a_row, a_col, b + j, ldb, c + j, ldc, accumulate);
    if (j == cols) return;
    // The last, narrower column block: B's columns and C's are copied into 16-wide scratch (zero
    // padded), so the same register block runs; only the valid columns are written back.
    const std::int64_t w = cols - j;
    thread_local std::vector<float> b_pad, c_pad;
    b_pad.assign(static_cast<std::size_t>(k * kCols), 0.0f);
    c_pad.assign(static_cast<std::size_t>(rows * kCols), 0.0f);
    for (std::int64_t m = 0; m < k; ++m) std::memcpy(&b_pad[m * kCols], b + m * ldb + j, w * sizeof(float));
    if (accumulate)
        for (std::int64_t i = 0; i < rows; ++i) std::memcpy(&c_pad[i * kCols], c + i * ldc + j, w * sizeof(float));
    column_block(rows, k, a, a_row, a_col, b_pad.data(), kCols, c_pad.data(), kCols, accumulate);
    for (std::int64_t i = 0; i < rows; ++i) std::memcpy(c + i * ldc + j, &c_pad[i * kCols], w * sizeof(float));
}

}  // namespace
}  // namespace gpulab::train::gemm_detail
