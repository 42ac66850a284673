// The device environment for nvcc: what the kernel headers (activation_kernel.cuh,
// conv2d_kernels.cuh) need beyond CUDA itself, as plain CUDA. Include it first, then the kernel
// headers, in a .cu file. Its twin for the host compiler is kernels/sim/sim_device_env.h, where the
// same names are the SIMT simulator's checked versions; here they cost nothing:
//
//   GlobalPtr<T>, SharedPtr<T>   T*
//   dynamic_shared<T>()          the kernel's extern __shared__ array (a macro cannot rewrite
//                                `extern __shared__`, so kernels ask this helper instead)
//   as_float4(p)                 reinterpret_cast<float4*>(p)
//   GPULAB_STATIC_SHARED(T, a, N)  __shared__ T a[N], used through a pointer of the same name (the
//                                simulator's version is checked and counted toward 48 KiB)
#pragma once

#include <cuda_runtime.h>

#define GPULAB_STATIC_SHARED(T, name, count) \
    __shared__ T name##_gpulab_storage[count];  \
    T* const name = name##_gpulab_storage

namespace gpulab::kern {

template <class T>
using GlobalPtr = T*;
template <class T>
using SharedPtr = T*;

template <class T>
__device__ __forceinline__ T* dynamic_shared() {
    extern __shared__ __align__(16) unsigned char gpulab_dynamic_shared[];
    return reinterpret_cast<T*>(gpulab_dynamic_shared);
}

__device__ __forceinline__ const float4* as_float4(const float* p) { return reinterpret_cast<const float4*>(p); }
__device__ __forceinline__ float4* as_float4(float* p) { return reinterpret_cast<float4*>(p); }

}  // namespace gpulab::kern
