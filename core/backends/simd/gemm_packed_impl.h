// The packed FP32 product's inner part (gemm_packed.h tells the whole story): the packers and the
// register-blocked micro-kernel, included by one .cpp per instruction set (gemm_packed_isa_*.cpp),
// each compiled with its own flags by core/CMakeLists.txt, like the training GEMM (gemm_kernel_impl.h).
// Before the include a file defines GPULAB_PACKED_VEC_FLOATS (floats in one register: 16 AVX-512,
// 8 AVX2, 4 SSE2), GPULAB_PACKED_MR (rows of the micro-tile) and GPULAB_PACKED_VECS (registers across
// it). A micro-tile of C is MR rows x VECS registers; on AVX-512, 6 x 4 registers = 6 x 64 floats:
//
//              packed B micro-panel: kc rows of NR = 4 registers, contiguous
//              p=0  [b .. b | b .. b | b .. b | b .. b]   <- four vector loads per step p
//              p=1  [b .. b | b .. b | b .. b | b .. b]
//              ...
//   packed A micro-panel: kc steps of MR floats, contiguous
//   p=0: a0 a1 .. a5       C tile (MR x NR) in MR x VECS registers:
//   p=1: a0 a1 .. a5         acc[i][v] += broadcast(a_i) * b[v]   (MR x VECS FMAs per step p)
//
// 6 x 64 on AVX-512 (24 accumulators + 4 B registers + 1 broadcast = 29 of 32 registers), 4 x 24 on
// AVX2 (12 + 3 + 1 = 16 of 16) and 6 x 8 on SSE2 (12 + 2 + 1 = 15 of 16). Every step of p loads VECS
// vectors of B and broadcasts MR floats of A, both from consecutive addresses because they were packed
// that way, for MR x VECS FMAs: the arithmetic, not the loads, sets the pace.
//
// Why these shapes (docs/benchmarks.md, issue 45): on the Sapphire-Rapids-class Xeon, 14 x 2, 12 x 2,
// 8 x 3 and 6 x 4 registers all reach 94-98 % of the FMA peak on blocks in L2, but in the whole product
// 6 x 4 was 1.00-1.06x oneDNN on one core where 14 x 2 was 0.92-0.99x: 10 loads per 24 FMAs instead of
// 16 per 28. On AVX2, 4 x 3 registers beat 6 x 2 the same way (and 3 x 4 needs 17 registers: spills).
#pragma once

#include <cstdint>
#include <cstring>

// An unnamed namespace: each gemm_packed_isa_*.cpp gets its own copy, compiled with its own flags
// (inline functions with external linkage would be merged by the linker, and one ISA's code could
// run for all). Nothing here instantiates a standard-library template for the same reason.
#pragma GCC diagnostic ignored "-Wpsabi"

namespace gpulab::cpu::packed_detail {
namespace {

constexpr int kLanes = GPULAB_PACKED_VEC_FLOATS;
constexpr int kMr = GPULAB_PACKED_MR;
constexpr int kVecs = GPULAB_PACKED_VECS;  // registers across a row of the micro-tile
constexpr int kNr = kVecs * kLanes;
typedef float vec __attribute__((vector_size(kLanes * sizeof(float))));

inline vec load(const float* p) {
    vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store(float* p, vec v) { std::memcpy(p, &v, sizeof v); }

inline std::int64_t smaller(std::int64_t x, std::int64_t y) { return x < y ? x : y; }

typedef int index_vec __attribute__((vector_size(kLanes * sizeof(int))));

// One stage of a kLanes x kLanes transpose held in registers: rows r and r + d (r without the bit d)
// swap their off-diagonal d-wide pieces. After the stages d = 1, 2, 4, ..., x[j][i] is the old x[i][j]:
//   d = 1:  [a0 a1 a2 a3]  ->  [a0 b0 a2 b2]        d = 2:  [a0 b0 a2 b2]  ->  [a0 b0 c0 d0]
//           [b0 b1 b2 b3]      [a1 b1 a3 b3]                [c0 d0 c2 d2]      [a2 b2 c2 d2]
template <int d>
inline __attribute__((always_inline)) void transpose_stage(vec* x) {
    index_vec low, high;
    for (int l = 0; l < kLanes; ++l) {
        low[l] = (l & d) ? kLanes + l - d : l;
        high[l] = (l & d) ? kLanes + l : l + d;
    }
#pragma GCC unroll 16
    for (int r = 0; r < kLanes; ++r) {
        if (r & d) continue;
        const vec lo = __builtin_shuffle(x[r], x[r + d], low), hi = __builtin_shuffle(x[r], x[r + d], high);
        x[r] = lo;
        x[r + d] = hi;
    }
}

inline __attribute__((always_inline)) void transpose(vec* x) {
    transpose_stage<1>(x);
    transpose_stage<2>(x);
    if constexpr (kLanes > 4) transpose_stage<4>(x);
    if constexpr (kLanes > 8) transpose_stage<8>(x);
}

// A full panel of a row-major A (a_col = 1): kLanes steps of p at a time, the panel's MR rows loaded
// as vectors (the rows past MR zero), turned in registers, and each step's MR values stored at once.
// Each store writes kLanes floats of which the last kLanes - MR spill into the next step's place and are
// overwritten by the next store (the buffer has room for the last one's spill: gemm_packed.cpp).
// About a quarter of a cycle a value where the scalar copy below takes one or two: packing A was 3-4 %
// of a 1024^3 product's time on one core.
inline void pack_a_panel_rows(std::int64_t kc, const float* src, std::int64_t a_row, float* dst) {
    std::int64_t p = 0;
    if constexpr (kMr <= kLanes) {
        for (; p + kLanes <= kc; p += kLanes) {
            vec x[kLanes];
#pragma GCC unroll 16
            for (int i = 0; i < kLanes; ++i) x[i] = i < kMr ? load(src + i * a_row + p) : vec{};
            transpose(x);
#pragma GCC unroll 16
            for (int j = 0; j < kLanes; ++j) store(dst + (p + j) * kMr, x[j]);
        }
    }
    for (; p < kc; ++p)
#pragma GCC unroll 16
        for (int i = 0; i < kMr; ++i) dst[p * kMr + i] = src[i * a_row + p];
}

void pack_a(std::int64_t rows, std::int64_t kc, const float* a, std::int64_t a_row, std::int64_t a_col, float* dst) {
    for (std::int64_t i0 = 0; i0 < rows; i0 += kMr, dst += kc * kMr) {
        const std::int64_t height = smaller(kMr, rows - i0);
        const float* src = a + i0 * a_row;
        if (height == kMr && a_col == 1) {
            pack_a_panel_rows(kc, src, a_row, dst);
        } else if (height == kMr && a_row == 1) {
            // A stored transposed (the training layers' W^T): a step's MR values are consecutive.
            for (std::int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 16
                for (int i = 0; i < kMr; ++i) dst[p * kMr + i] = src[p * a_col + i];
        } else {
            for (std::int64_t p = 0; p < kc; ++p)
                for (int i = 0; i < kMr; ++i) dst[p * kMr + i] = i < height ? src[i * a_row + p * a_col] : 0.0f;
        }
    }
}

void pack_b(std::int64_t kc, std::int64_t cols, const float* b, std::int64_t ldb, float* dst) {
    for (std::int64_t j0 = 0; j0 < cols; j0 += kNr, dst += kc * kNr) {
        const std::int64_t width = smaller(kNr, cols - j0);
        const float* src = b + j0;
        if (width == kNr) {
            for (std::int64_t p = 0; p < kc; ++p)
#pragma GCC unroll 4
                for (int v = 0; v < kVecs; ++v) store(dst + p * kNr + v * kLanes, load(src + p * ldb + v * kLanes));
        } else {
            for (std::int64_t p = 0; p < kc; ++p)
                for (int j = 0; j < kNr; ++j) dst[p * kNr + j] = j < width ? src[p * ldb + j] : 0.0f;
        }
    }
}

// One MR x NR tile of C from one micro-panel of A and one of B. Only `rows` x `cols` of it are
// written: at the block's right and bottom edges the padding zeros of the panels make the rest.
inline __attribute__((always_inline)) void micro_kernel(std::int64_t kc, const float* pa, const float* pb, float* c,
                                                        std::int64_t ldc, std::int64_t rows, std::int64_t cols,
                                                        bool accumulate) {
    vec acc[kMr][kVecs];
#pragma GCC unroll 16
    for (int i = 0; i < kMr; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < kVecs; ++v) acc[i][v] = vec{};
    // C's rows are written at the end: ask for their lines now, so the misses overlap the arithmetic.
    if (rows == kMr)
#pragma GCC unroll 16
        for (int i = 0; i < kMr; ++i)
#pragma GCC unroll 4
            for (int v = 0; v < kVecs; ++v) __builtin_prefetch(c + i * ldc + v * kLanes, 1);
#pragma GCC unroll 4
    for (std::int64_t p = 0; p < kc; ++p) {
        vec bv[kVecs];
#pragma GCC unroll 4
        for (int v = 0; v < kVecs; ++v) bv[v] = load(pb + v * kLanes);
#pragma GCC unroll 16
        for (int i = 0; i < kMr; ++i) {
            const float x = pa[i];
#pragma GCC unroll 4
            for (int v = 0; v < kVecs; ++v) acc[i][v] += x * bv[v];
        }
        pa += kMr;
        pb += kNr;
    }
    if (rows == kMr && cols == kNr) {
#pragma GCC unroll 16
        for (int i = 0; i < kMr; ++i)
#pragma GCC unroll 4
            for (int v = 0; v < kVecs; ++v) {
                float* at = c + i * ldc + v * kLanes;
                store(at, accumulate ? load(at) + acc[i][v] : acc[i][v]);
            }
        return;
    }
    float tile[kMr][kNr];
    for (int i = 0; i < kMr; ++i)
        for (int v = 0; v < kVecs; ++v) store(&tile[i][v * kLanes], acc[i][v]);
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) c[i * ldc + j] = accumulate ? c[i * ldc + j] + tile[i][j] : tile[i][j];
}

// Every tile of a packed block: columns outside, rows inside, so one B micro-panel (kc x NR) stays
// in L1 while the A micro-panels of the whole block stream past it from L2.
void macro_kernel(std::int64_t rows, std::int64_t cols, std::int64_t kc, const float* packed_a, const float* packed_b,
                  float* c, std::int64_t ldc, bool accumulate) {
    for (std::int64_t j = 0; j < cols; j += kNr) {
        const float* pb = packed_b + (j / kNr) * kc * kNr;
        for (std::int64_t i = 0; i < rows; i += kMr)
            micro_kernel(kc, packed_a + (i / kMr) * kc * kMr, pb, c + i * ldc + j, ldc, smaller(kMr, rows - i),
                         smaller(kNr, cols - j), accumulate);
    }
}

}  // namespace
}  // namespace gpulab::cpu::packed_detail
