// cuBLAS loaded when first used (dlopen of libcublas.so.13), not linked, for the same reason as
// cuDNN (cudnn_library.h): a binary linked against libcublas.so.13 does not start on a machine
// without it, and this toolkit ships cuBLAS only as a shared library (no libcublas_static.a next
// to it), so linking CUDA::cublas from FindCUDAToolkit would tie every build to it. Loaded at run
// time, the same binary starts everywhere, and its users (the cudnn training engine, the GEMM
// precision rows of cublas_gemm_precision.h) say why it is unavailable. The types come from <cublas_v2.h> (part of the CUDA toolkit's headers).
//
// cublas_v2.h maps the documented names onto versioned symbols with macros (cublasCreate is
// cublasCreate_v2, cublasSgemm is cublasSgemm_v2), so the list below names the symbols that
// libcublas.so.13 exports, checked with `nm -D` (docs/gpu-verification.md).
//
// Verified by tests/test_cudnn_train_plan.cpp: an empty folder gives "libcublas.so.13 not found"
// with the fix; where the toolkit's cuBLAS is installed it loads and reports major 13.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "runtime_library.h"

namespace gpulab::cuda {

#define GPULAB_CUBLAS_FUNCTIONS(X)                                                                 \
    X(cublasGetProperty) X(cublasGetStatusName) X(cublasGetStatusString) X(cublasCreate_v2)        \
    X(cublasDestroy_v2) X(cublasSetStream_v2) X(cublasSetMathMode) X(cublasSgemm_v2)

// cublasGemmEx is overloaded in C++: cublas_api.h adds an inline wrapper that takes the old
// cudaDataType compute type, so decltype(&::cublasGemmEx) is ambiguous. The exported one (the
// cublasComputeType_t form, symbol cublasGemmEx in libcublas.so.13) is typed out here, and
// kCublasGemmExMatches stops the build if the header's declaration ever differs from it.
using CublasGemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                                          const void*, const void*, cudaDataType, int, const void*, cudaDataType,
                                          int, const void*, void*, cudaDataType, int, cublasComputeType_t,
                                          cublasGemmAlgo_t);
inline constexpr CublasGemmExFn kCublasGemmExMatches = &::cublasGemmEx;

struct CublasApi {
#define GPULAB_CUBLAS_MEMBER(name) decltype(&::name) name = nullptr;
    GPULAB_CUBLAS_FUNCTIONS(GPULAB_CUBLAS_MEMBER)
#undef GPULAB_CUBLAS_MEMBER
    CublasGemmExFn cublasGemmEx = nullptr;  // the precision rows (cublas_gemm_precision.cu)
};

// Like CudnnLoad: `api` null and `reason` one sentence when unusable; else `path` and `version`
// ("13.1.0", from cublasGetProperty).
using CublasLoad = LibraryLoad<CublasApi>;

// The soname's number this build's calls are written for: the cuBLAS of the CUDA toolkit we compile with.
constexpr int kCublasMajor = CUBLAS_VER_MAJOR;

// Loads once per process (thread-safe), through runtime_library.h like cuDNN. Looks in
// $GPULAB_CUBLAS_DIR only when that is set; otherwise through the dynamic loader's search path, then
// the build's toolkit folder, then /usr/local/cuda.
const CublasLoad& load_cublas();
// The loaded entry points; throws CudaError with load_cublas().reason when there are none.
const CublasApi& cublas_api();
// From exactly `dir`, not cached, unloaded again (for tests); the returned api is null.
CublasLoad try_load_cublas_from(const std::string& dir);

}  // namespace gpulab::cuda

// Usable where cublas_library.h is included: the call text, place, status name and sentence.
#define GPULAB_CUBLAS_CHECK(call)                                                                         \
    do {                                                                                                  \
        const cublasStatus_t gpulab_cb_ = (call);                                                         \
        if (gpulab_cb_ != CUBLAS_STATUS_SUCCESS) {                                                        \
            cudaGetLastError();                                                                           \
            throw ::gpulab::cuda::CudaError(                                                              \
                std::string(#call) + " failed at " + ::gpulab::cuda::short_file(__FILE__) + ":" +         \
                std::to_string(__LINE__) + ": " + ::gpulab::cuda::cublas_api().cublasGetStatusName(gpulab_cb_) + \
                ": " + ::gpulab::cuda::cublas_api().cublasGetStatusString(gpulab_cb_));                   \
        }                                                                                                 \
    } while (0)
