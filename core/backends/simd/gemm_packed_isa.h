// What one instruction set's file (gemm_packed_isa_*.cpp) hands the packed FP32 product
// (gemm_packed.cpp) and the ladder of rungs (gemm_rungs.cpp): the micro-tile and block sizes it was
// written for, its packers, its macro-kernel, and its plain loop rungs, all compiled with that file's
// flags. nullptr when this build or compiler did not produce the file's instruction set.
#pragma once

#include <cstdint>

namespace gpulab::cpu::packed_detail {

struct PackedKernel {
    const char* isa = "";  // "AVX-512", "AVX2+FMA", "SSE2"
    int mr = 0, nr = 0;    // micro-tile: rows x columns of C held in registers
    int kc = 0;            // depth of a packed block: k is cut into runs of kc
    int mc = 0;            // rows of A packed at once (mc x kc floats sit in L2)
    int nc = 0;            // columns of B packed at once (kc x nc floats sit in L3)

    // rows (<= mc) x kc of A, A(i, p) = a[i * a_row + p * a_col], into ceil(rows / mr) micro-panels:
    // panel q holds, for p = 0 .. kc - 1, the mr floats A(q mr + 0 .. q mr + mr - 1, p); past `rows`, zeros.
    void (*pack_a)(std::int64_t rows, std::int64_t kc, const float* a, std::int64_t a_row, std::int64_t a_col,
                   float* dst) = nullptr;
    // kc x cols of B, B(p, j) = b[p * ldb + j], into ceil(cols / nr) micro-panels: panel q holds, for
    // p = 0 .. kc - 1, the nr floats B(p, q nr + 0 .. q nr + nr - 1); past `cols`, zeros.
    void (*pack_b)(std::int64_t kc, std::int64_t cols, const float* b, std::int64_t ldb, float* dst) = nullptr;
    // C(rows x cols) = [C if accumulate] + packed A x packed B: every micro-tile of the block, edges
    // included (only the valid rows and columns are written).
    void (*macro_kernel)(std::int64_t rows, std::int64_t cols, std::int64_t kc, const float* packed_a,
                         const float* packed_b, float* c, std::int64_t ldc, bool accumulate) = nullptr;

    // The ladder's first rungs, dense row-major C(m x n) = A(m x k) x B(k x n), C overwritten: the
    // same loops compiled for this instruction set, so each rung's gain is its own change.
    void (*naive_loops)(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                        std::int64_t k) = nullptr;
    void (*loop_order)(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                       std::int64_t k) = nullptr;
    void (*cache_blocked)(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                          std::int64_t k) = nullptr;
    // The FMA ceiling (gemm_rungs_impl.h): `steps` steps of 2 mr independent vector FMAs, 2 mr nr FLOPs
    // a step, nothing loaded; returns a sum of the results.
    float (*fma_burst)(std::int64_t steps) = nullptr;
};

const PackedKernel* baseline_packed();
const PackedKernel* avx2_packed();
const PackedKernel* avx512_packed();

}  // namespace gpulab::cpu::packed_detail
