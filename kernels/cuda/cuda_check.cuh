// Checked CUDA and cuDNN calls that THROW gpulab::cuda::CudaError instead of exiting.
//
// Why throw: cuda-samples' helper_cuda.h calls exit(), which is right for a sample and wrong for an
// app that must keep running when a 2^34-element request fails. Like nvbench's check macro, the
// message carries the call text, file and line plus the error's name and sentence, so a student
// sees "cudaMalloc(...) failed at activation.cu:42: cudaErrorMemoryAllocation: out of memory".
// Every Backend::run catches CudaError at its boundary and returns ok=false with what().
//
// Sticky errors: after a failed runtime call we call cudaGetLastError() so that the *next*
// unrelated check does not report this old error again. (Errors that corrupt the context, such as
// an illegal address, stay sticky whatever we do; the message then says so by repeating.)
//
// Verified by tests/test_gpu_backends.cpp: the "backends" suite sees these messages come back as
// ok=false without a throw escaping, and the gpu suite's too-large allocation is refused by text.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace gpulab::cuda {

class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Only the file name: full build paths make the message too long for a status bar.
inline const char* short_file(const char* path) {
    const char* base = path;
    for (const char* p = path; *p != '\0'; ++p) {
        if (*p == '/' || *p == '\\') base = p + 1;
    }
    return base;
}

// "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version":
// the form probe() and availability() show verbatim.
inline std::string describe(cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* call, const char* file, int line) {
    cudaGetLastError();  // clear the error so later checks report their own failures
    throw CudaError(std::string(call) + " failed at " + short_file(file) + ":" + std::to_string(line) + ": " +
                    describe(e));
}

// cuDNN 9 groups its status codes by thousands (3000 = NOT_SUPPORTED, 3001.. its sub-reasons), so
// the whole 3xxx block gets the hint. `detail` is cudnnGetLastErrorString's text when non-empty.
[[noreturn]] inline void throw_cudnn_error(int status, const char* status_text, bool not_supported,
                                           const std::string& detail, const char* call, const char* file,
                                           int line) {
    cudaGetLastError();
    std::string msg = std::string(call) + " failed at " + short_file(file) + ":" + std::to_string(line) +
                      ": cuDNN status " + std::to_string(status) + " (" + status_text + ")";
    if (!detail.empty()) msg += ": " + detail;
    if (not_supported) {
        msg += ". Hint: cuDNN has no implementation for this combination of data type, layout, shape and "
               "device; try another shape or the cuda-kernel backend";
    }
    throw CudaError(msg);
}

}  // namespace gpulab::cuda

#define GPULAB_CUDA_CHECK(call)                                                           \
    do {                                                                                  \
        const cudaError_t gpulab_err_ = (call);                                           \
        if (gpulab_err_ != cudaSuccess) {                                                 \
            ::gpulab::cuda::throw_cuda_error(gpulab_err_, #call, __FILE__, __LINE__);     \
        }                                                                                 \
    } while (0)

// A launch itself returns nothing: a bad configuration (zero blocks, too many threads) only shows
// in cudaGetLastError(), which also clears it. Use right after every <<<...>>>.
#define GPULAB_CUDA_CHECK_LAUNCH()                                                          \
    do {                                                                                    \
        const cudaError_t gpulab_err_ = cudaGetLastError();                                 \
        if (gpulab_err_ != cudaSuccess) {                                                   \
            ::gpulab::cuda::throw_cuda_error(gpulab_err_, "kernel launch", __FILE__, __LINE__); \
        }                                                                                   \
    } while (0)

// Usable only where cudnn_library.h is included (cudnn_backend.cu): cuDNN is loaded at run time, so
// the error strings come through cudnn_api(). The macro, not a function, touches cuDNN types, so this
// header stays free of cuDNN.
#define GPULAB_CUDNN_CHECK(call)                                                                            \
    do {                                                                                                    \
        const cudnnStatus_t gpulab_st_ = (call);                                                            \
        if (gpulab_st_ != CUDNN_STATUS_SUCCESS) {                                                           \
            char gpulab_detail_[256] = {0};                                                                 \
            ::gpulab::cuda::cudnn_api().cudnnGetLastErrorString(gpulab_detail_, sizeof(gpulab_detail_));   \
            ::gpulab::cuda::throw_cudnn_error(                                                              \
                static_cast<int>(gpulab_st_), ::gpulab::cuda::cudnn_api().cudnnGetErrorString(gpulab_st_),  \
                static_cast<int>(gpulab_st_) / 1000 == static_cast<int>(CUDNN_STATUS_NOT_SUPPORTED) / 1000, \
                gpulab_detail_, #call, __FILE__, __LINE__);                                                 \
        }                                                                                                   \
    } while (0)
