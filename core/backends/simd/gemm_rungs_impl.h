// The ladder's first three rungs (gemm_rungs.h): plain loops, dense row-major C(m x n) = A(m x k) x
// B(k x n), C overwritten. Included by each gemm_packed_isa_*.cpp beside gemm_packed_impl.h, so the
// compiler vectorises them for the same instruction set as the micro-kernel and the gain of every
// rung is its own change, not a wider register. Verified by tests/test_gemm_packed.cpp.
#pragma once

#include <cstdint>

namespace gpulab::cpu::packed_detail {
namespace {

// Rung 1, naive i-j-k: each C(i, j) is a dot product of row i of A and column j of B. The inner loop
// walks down a column of B, n floats apart: a new cache line for every multiply-add once B is
// larger than the caches, and one sum the compiler may not split, so no vectors either.
void naive_loops(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            float sum = 0.0f;
            for (std::int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
            c[i * n + j] = sum;
        }
}

// Rung 2, loop order i-k-j: the same multiply-adds, but the inner loop runs along a row of B and a row
// of C, consecutive floats: every byte of a cache line is used and the compiler turns the loop into
// vector FMAs. Each row of C still reads all of B, which no cache holds past a few hundred columns.
void loop_order(const float* __restrict a, const float* __restrict b, float* __restrict c, std::int64_t m,
                std::int64_t n, std::int64_t k) {
    for (std::int64_t i = 0; i < m; ++i) {
        float* ci = c + i * n;
        for (std::int64_t j = 0; j < n; ++j) ci[j] = 0.0f;
        for (std::int64_t p = 0; p < k; ++p) {
            const float x = a[i * k + p];
            const float* bp = b + p * n;
            for (std::int64_t j = 0; j < n; ++j) ci[j] += x * bp[j];
        }
    }
}

// Rung 3, cache blocking: the i-k-j loops over one block of kBlockK x kBlockN of B at a time (256 KiB,
// kept in L2), which every row of A uses before the next block is read: B comes from memory once
// instead of m times. A row piece of C (kBlockN floats) stays in L1 across the block's k loop; C as a
// whole passes k / kBlockK times. Still one load and one store of C per vector of multiply-adds, and
// A and B read as they lie in memory.
constexpr std::int64_t kBlockK = 128, kBlockN = 512;

void cache_blocked(const float* __restrict a, const float* __restrict b, float* __restrict c, std::int64_t m,
                   std::int64_t n, std::int64_t k) {
    for (std::int64_t i = 0; i < m * n; ++i) c[i] = 0.0f;
    for (std::int64_t j0 = 0; j0 < n; j0 += kBlockN) {
        const std::int64_t j1 = j0 + kBlockN < n ? j0 + kBlockN : n;
        for (std::int64_t p0 = 0; p0 < k; p0 += kBlockK) {
            const std::int64_t p1 = p0 + kBlockK < k ? p0 + kBlockK : k;
            for (std::int64_t i = 0; i < m; ++i) {
                float* ci = c + i * n;
                for (std::int64_t p = p0; p < p1; ++p) {
                    const float x = a[i * k + p];
                    const float* bp = b + p * n;
                    for (std::int64_t j = j0; j < j1; ++j) ci[j] += x * bp[j];
                }
            }
        }
    }
}

// The ceiling the rungs are measured against: the micro-kernel's own 2 MR accumulator registers, each
// an independent chain of FMAs (acc = acc x + y), with nothing loaded. 2 MR chains are more than an
// FMA's latency times the FMAs a core starts per cycle (4 x 2 on current cores), so the core issues
// FMAs as fast as it can. Returns a sum of the results, so the compiler must do the work. (SSE2 has
// no FMA: a multiply and an add, the same 2 FLOPs.)
float fma_burst(std::int64_t steps) {
    constexpr int kChains = GPULAB_PACKED_VECS * GPULAB_PACKED_MR;
    typedef float chain_vec __attribute__((vector_size(GPULAB_PACKED_VEC_FLOATS * sizeof(float))));
    chain_vec acc[kChains];
#pragma GCC unroll 32
    for (int i = 0; i < kChains; ++i) acc[i] = chain_vec{} + static_cast<float>(i) * 1e-3f;
    const chain_vec x = chain_vec{} + 0.999999f, y = chain_vec{} + 1e-6f;
    for (std::int64_t s = 0; s < steps; ++s)
#pragma GCC unroll 32
        for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * x + y;
    float sum = 0.0f;
    for (int i = 0; i < kChains; ++i)
        for (int l = 0; l < GPULAB_PACKED_VEC_FLOATS; ++l) sum += acc[i][l];
    return sum;
}

}  // namespace
}  // namespace gpulab::cpu::packed_detail
