// measure_cublas_gemm for a build that cannot call cuBLAS (no CUDA compiler, or no cuDNN / cuBLAS
// headers at configure time): the four rows, not run, with the configure's reason
// (GPULAB_CUBLAS_GEMM_WHY, set in kernels/CMakeLists.txt). A bad shape is still refused first, so
// the argument check reads the same in every build.
#include "cublas_gemm_precision.h"

namespace gpulab::gpu {

std::vector<core::GemmSpeedRow> measure_cublas_gemm(int64_t m, int64_t n, int64_t k, const core::MeasureConfig&) {
    if (std::string why = cublas_gemm_problem(m, n, k); !why.empty()) return cublas_gemm_not_run(why, true);
    return cublas_gemm_not_run(GPULAB_CUBLAS_GEMM_WHY);
}

}  // namespace gpulab::gpu
