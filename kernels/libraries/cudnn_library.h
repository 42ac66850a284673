// cuDNN loaded when first used (dlopen of libcudnn.so.9), not linked.
//
// Why: a binary linked against libcudnn.so.9 does not even start on a machine without cuDNN, so one
// build could not serve a student with a bare NVIDIA driver, one with cuDNN, and one without any GPU.
// Loaded at run time, the same binary starts everywhere and the "cudnn" backend says why it is
// unavailable ("libcudnn.so.9 not found ...", "... reports cuDNN 8.9.7; gpulab needs cuDNN 9").
//
// The handful of entry points cudnn_backend.cu calls are resolved once, into CudnnApi; calls read
// `cudnn_api().cudnnCreate(&h)`. The types still come from <cudnn.h> at build time (header only).
// The search, dlopen, dlsym and the once-only load are runtime_library.h's, shared with cuBLAS.
//
// Verified by tests/test_cudnn_library.cpp: the real library loads and reports major 9 (where it is
// installed), an empty folder gives "not found", and a stand-in libcudnn.so.9 reporting 8.9.7 is
// refused as the wrong major version.
#pragma once

#include <cudnn.h>

#include <string>

#include "runtime_library.h"

namespace gpulab::cuda {

// Every cuDNN function gpulab calls. Adding a call to cudnn_backend.cu means adding its name here.
#define GPULAB_CUDNN_FUNCTIONS(X)                                                                         \
    X(cudnnGetVersion) X(cudnnGetErrorString) X(cudnnGetLastErrorString) X(cudnnCreate) X(cudnnDestroy)   \
    X(cudnnSetStream) X(cudnnCreateTensorDescriptor) X(cudnnDestroyTensorDescriptor)                      \
    X(cudnnSetTensor4dDescriptor) X(cudnnCreateFilterDescriptor) X(cudnnDestroyFilterDescriptor)          \
    X(cudnnSetFilter4dDescriptor) X(cudnnCreateActivationDescriptor) X(cudnnDestroyActivationDescriptor)  \
    X(cudnnSetActivationDescriptor) X(cudnnActivationForward) X(cudnnCreateConvolutionDescriptor)         \
    X(cudnnDestroyConvolutionDescriptor) X(cudnnSetConvolution2dDescriptor) X(cudnnSetConvolutionMathType) \
    X(cudnnGetConvolution2dForwardOutputDim) X(cudnnGetConvolutionForwardAlgorithmMaxCount)               \
    X(cudnnFindConvolutionForwardAlgorithm) X(cudnnConvolutionForward)                                   \
    /* training (cudnn_train_engine.cu) */                                                                \
    X(cudnnActivationBackward) X(cudnnAddTensor) X(cudnnCreatePoolingDescriptor)                          \
    X(cudnnDestroyPoolingDescriptor) X(cudnnSetPooling2dDescriptor) X(cudnnGetPooling2dForwardOutputDim)  \
    X(cudnnPoolingForward) X(cudnnPoolingBackward) X(cudnnConvolutionBackwardBias)                        \
    X(cudnnGetConvolutionBackwardDataAlgorithmMaxCount) X(cudnnFindConvolutionBackwardDataAlgorithm)      \
    X(cudnnConvolutionBackwardData) X(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount)                 \
    X(cudnnFindConvolutionBackwardFilterAlgorithm) X(cudnnConvolutionBackwardFilter)                     \
    X(cudnnConvolutionBiasActivationForward)

struct CudnnApi {
#define GPULAB_CUDNN_MEMBER(name) decltype(&::name) name = nullptr;
    GPULAB_CUDNN_FUNCTIONS(GPULAB_CUDNN_MEMBER)
#undef GPULAB_CUDNN_MEMBER
};

// The outcome of loading: `api` is null when the library could not be used, and `reason` says why in
// one sentence; otherwise `path` is the file that was loaded and `version` its cudnnGetVersion(),
// formatted ("9.19.0").
using CudnnLoad = LibraryLoad<CudnnApi>;

// The major cuDNN version this build's calls are written for (the soname's number).
constexpr int kCudnnMajor = 9;

// Loads once per process (thread-safe) and returns the same result to every caller. Looks in
// $GPULAB_CUDNN_DIR only when that is set; otherwise through the dynamic loader's search path
// (LD_LIBRARY_PATH, ld.so.cache), then the folder CMake found cuDNN in, then /usr/local/cuda.
const CudnnLoad& load_cudnn();

// The loaded entry points. Only call after load_cudnn().api was non-null (the backend's availability
// guarantees it); otherwise this throws CudaError with load_cudnn().reason.
const CudnnApi& cudnn_api();

// Loads from exactly `dir` without caching and unloads again: what the tests use to reach the
// "missing" and "wrong version" paths. The returned api is null (it would dangle).
CudnnLoad try_load_cudnn_from(const std::string& dir);

// "9.19.0" from cudnnGetVersion()'s number (cuDNN 9: major*10000 + minor*100 + patch; cuDNN 8 and
// older: major*1000 + minor*100 + patch).
std::string format_cudnn_version(std::size_t v);
int cudnn_major(std::size_t v);

}  // namespace gpulab::cuda
