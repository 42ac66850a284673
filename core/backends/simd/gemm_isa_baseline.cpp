// The matrix product for any x86-64 (SSE2) or other CPU: see gemm_kernel_impl.h.
#include "gemm_isa.h"
#define GPULAB_GEMM_VEC_FLOATS 4
#define GPULAB_GEMM_ROWS 6
#include "gemm_kernel_impl.h"

namespace gpulab::train::gemm_detail {
GemmFn baseline_gemm() { return &gemm_kernel; }
}  // namespace gpulab::train::gemm_detail
