// Picks the matrix product for this CPU: the same instruction set as the activation kernels
// (cpu::best_simd_isa, so GPULAB_ISA caps both), falling back to the baseline.
#include "train_gemm.h"

#include <vector>

#include "simd_math.h"
#include "gemm_isa.h"

namespace gpulab::train {

float* gemm_detail::gemm_scratch(int slot, std::int64_t floats) {
    thread_local std::vector<float> buffers[2];
    std::vector<float>& b = buffers[slot & 1];
    if (static_cast<std::int64_t>(b.size()) < floats) b.resize(static_cast<std::size_t>(floats));
    return b.data();
}

namespace {

struct Chosen {
    gemm_detail::GemmFn fn = nullptr;
    const char* isa = "SSE2";
};

Chosen choose_for(cpu::SimdIsa best) {
    if (best == cpu::SimdIsa::Avx512 && gemm_detail::avx512_gemm()) return {gemm_detail::avx512_gemm(), "AVX-512"};
    if (best != cpu::SimdIsa::Baseline && gemm_detail::avx2_gemm()) return {gemm_detail::avx2_gemm(), "AVX2+FMA"};
    return {gemm_detail::baseline_gemm(), "baseline (SSE2)"};
}

const Chosen& chosen() {
    static const Chosen c = choose_for(cpu::best_simd_isa());
    return c;
}

}  // namespace

void gemm(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a, std::int64_t a_row,
          std::int64_t a_col, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate) {
    if (rows <= 0 || cols <= 0) return;
    chosen().fn(rows, cols, k, a, a_row, a_col, b, ldb, c, ldc, accumulate);
}

void gemm_with(cpu::SimdIsa isa, std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a,
               std::int64_t a_row, std::int64_t a_col, const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
               bool accumulate) {
    if (rows <= 0 || cols <= 0) return;
    choose_for(isa).fn(rows, cols, k, a, a_row, a_col, b, ldb, c, ldc, accumulate);
}

const char* gemm_isa() { return chosen().isa; }

}  // namespace gpulab::train
