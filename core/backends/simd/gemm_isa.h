// One matrix-product function per instruction set (gemm_isa_*.cpp); nullptr when this build or
// compiler did not produce it. train_gemm.cpp picks one.
#pragma once

#include <cstdint>

namespace gpulab::train::gemm_detail {

using GemmFn = void (*)(std::int64_t rows, std::int64_t cols, std::int64_t k, const float* a, std::int64_t a_row,
                        std::int64_t a_col, const float* b, std::int64_t ldb, float* c, std::int64_t ldc,
                        bool accumulate);
GemmFn baseline_gemm();
// A thread's scratch of at least `floats` floats (slot 0 or 1), kept between calls; from
// train_gemm.cpp, which is compiled for every CPU (see gemm_kernel_impl.h for why).
float* gemm_scratch(int slot, std::int64_t floats);
GemmFn avx2_gemm();
GemmFn avx512_gemm();

}  // namespace gpulab::train::gemm_detail
