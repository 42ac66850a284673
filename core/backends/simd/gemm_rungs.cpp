// The ladder of FP32 matrix products (see gemm_rungs.h): names, and each rung run on the kernels of
// one instruction set. Verified by tests/test_gemm_packed.cpp.
#include "gemm_rungs.h"

#include "gemm_packed.h"
#include "gemm_packed_isa.h"

namespace gpulab::cpu {

namespace {

const packed_detail::PackedKernel& loops_for(SimdIsa isa) {
    if (isa == SimdIsa::Avx512 && packed_detail::avx512_packed()) return *packed_detail::avx512_packed();
    if (isa != SimdIsa::Baseline && packed_detail::avx2_packed()) return *packed_detail::avx2_packed();
    return *packed_detail::baseline_packed();
}

}  // namespace

const char* gemm_rung_name(GemmRung rung) {
    switch (rung) {
        case GemmRung::NaiveLoops: return "naive i-j-k loops";
        case GemmRung::LoopOrder: return "loop order i-k-j";
        case GemmRung::CacheBlocked: return "cache blocking";
        case GemmRung::PackedOneCore: return "packing + micro-kernel";
        case GemmRung::PackedAllCores: return "+ threads";
    }
    return "?";
}

const char* gemm_rung_id(GemmRung rung) {
    switch (rung) {
        case GemmRung::NaiveLoops: return "naive";
        case GemmRung::LoopOrder: return "loop-order";
        case GemmRung::CacheBlocked: return "blocked";
        case GemmRung::PackedOneCore: return "packed";
        case GemmRung::PackedAllCores: return "threads";
    }
    return "?";
}

const char* gemm_rung_idea(GemmRung rung) {
    switch (rung) {
        case GemmRung::NaiveLoops:
            return "one dot product per output: the inner loop walks down a column of B, a new cache line per "
                   "multiply-add, one running sum, no vectors";
        case GemmRung::LoopOrder:
            return "the same multiply-adds with k in the middle: the inner loop runs along rows of B and C, so "
                   "it uses whole cache lines and becomes vector FMAs";
        case GemmRung::CacheBlocked:
            return "the same loops over a 128 x 512 block of B at a time, which stays in L2 while every row of A "
                   "uses it: B comes from memory once";
        case GemmRung::PackedOneCore:
            return "blocks of A and B copied into the order the kernel reads them, and a tile of C held in "
                   "registers for the whole block of k: the FMAs, not the loads, set the pace";
        case GemmRung::PackedAllCores:
            return "the packed product's tiles of C shared out to every core";
    }
    return "?";
}

bool gemm_rung_all_cores(GemmRung rung) { return rung == GemmRung::PackedAllCores; }

void run_gemm_rung_with(SimdIsa isa, GemmRung rung, const float* a, const float* b, float* c, std::int64_t m,
                        std::int64_t n, std::int64_t k) {
    if (m <= 0 || n <= 0) return;
    const packed_detail::PackedKernel& loops = loops_for(isa);
    switch (rung) {
        case GemmRung::NaiveLoops: loops.naive_loops(a, b, c, m, n, k); return;
        case GemmRung::LoopOrder: loops.loop_order(a, b, c, m, n, k); return;
        case GemmRung::CacheBlocked: loops.cache_blocked(a, b, c, m, n, k); return;
        case GemmRung::PackedOneCore:
        case GemmRung::PackedAllCores:
            gemm_packed_with(isa, m, n, k, a, k, 1, b, n, c, n, false, gemm_rung_all_cores(rung));
            return;
    }
}

void run_gemm_rung(GemmRung rung, const float* a, const float* b, float* c, std::int64_t m, std::int64_t n,
                   std::int64_t k) {
    run_gemm_rung_with(best_simd_isa(), rung, a, b, c, m, n, k);
}

double run_fma_burst_with(SimdIsa isa, std::int64_t steps) {
    const packed_detail::PackedKernel& loops = loops_for(isa);
    // The result is kept in a volatile, so the burst cannot be dropped as unused.
    volatile float sink = loops.fma_burst(steps);
    (void)sink;
    return 2.0 * loops.mr * loops.nr * static_cast<double>(steps);
}

double run_fma_burst(std::int64_t steps) { return run_fma_burst_with(best_simd_isa(), steps); }

}  // namespace gpulab::cpu
