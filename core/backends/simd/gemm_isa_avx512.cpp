// The matrix product for AVX-512; core/CMakeLists.txt compiles this file with -mavx512f and
// train_gemm.cpp calls it only on a CPU that has it.
#include "gemm_isa.h"

#if defined(__AVX512F__)
#define GPULAB_GEMM_VEC_FLOATS 16
#define GPULAB_GEMM_ROWS 12
#include "gemm_kernel_impl.h"
namespace gpulab::train::gemm_detail {
GemmFn avx512_gemm() { return &gemm_kernel; }
}  // namespace gpulab::train::gemm_detail
#else
namespace gpulab::train::gemm_detail {
GemmFn avx512_gemm() { return nullptr; }
}  // namespace gpulab::train::gemm_detail
#endif
