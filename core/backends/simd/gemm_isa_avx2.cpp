// The matrix product for AVX2 + FMA; core/CMakeLists.txt compiles this file with -mavx2 -mfma and
// train_gemm.cpp calls it only on a CPU that has both.
#include "gemm_isa.h"

#if defined(__AVX2__) && defined(__FMA__)
#define GPULAB_GEMM_VEC_FLOATS 8
#define GPULAB_GEMM_ROWS 6
#include "gemm_kernel_impl.h"
namespace gpulab::train::gemm_detail {
GemmFn avx2_gemm() { return &gemm_kernel; }
}  // namespace gpulab::train::gemm_detail
#else
namespace gpulab::train::gemm_detail {
GemmFn avx2_gemm() { return nullptr; }
}  // namespace gpulab::train::gemm_detail
#endif
