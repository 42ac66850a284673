// The device environment for the host compiler: what a kernel header (activation_kernel.cuh,
// conv2d_kernels.cuh) needs from CUDA, supplied by the SIMT simulator. Include it first, then the
// kernel headers, in a translation unit that includes no CUDA header. Its twin for nvcc is
// kernels/cuda_device_env.cuh; the kernel headers compile unchanged against either.
//
//   CUDA                      here
//   __global__ __device__     nothing: a kernel is a plain function, run once per fiber
//   __shared__ (static)       static thread_local: one copy per OS thread, which runs one block at a
//                             time (unchecked: our kernels use dynamic shared memory instead)
//   threadIdx blockIdx ...    the running fiber's built-in variables
//   __syncthreads()           the block barrier of sim_runtime.cpp (records the line, for messages)
//   GlobalPtr<T>, SharedPtr<T>  checked pointers (T* under nvcc)
//   dynamic_shared<T>()       the block's dynamic shared memory (extern __shared__ under nvcc)
//   as_float4(p)              reinterpret a float pointer as float4 (alignment checked on access)
//   __activemask() and other warp intrinsics: refused with a sentence (the fibers of a warp run one
//                             after another, so which lanes a GPU would run together is not modelled)
//
// Verified by tests/test_sim.cpp.
#pragma once

#include <cstdint>
#include <cmath>

#include "sim/sim_runtime.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static thread_local
#define __syncthreads() ::gpulab::sim::detail::sync_threads(__LINE__)

using uint3 = ::gpulab::sim::U3;

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
};

struct alignas(16) float4 {
    float x, y, z, w;
};

#define threadIdx (::gpulab::sim::builtins().thread_idx)
#define blockIdx (::gpulab::sim::builtins().block_idx)
#define blockDim (::gpulab::sim::builtins().block_dim)
#define gridDim (::gpulab::sim::builtins().grid_dim)
#define warpSize 32

inline unsigned __activemask() {
    ::gpulab::sim::detail::refuse(
        "__activemask() asks which lanes of a warp a GPU runs together, and the simulator runs a warp's threads "
        "one after another, so it has no faithful answer");
}

inline long long clock64() {
    ::gpulab::sim::detail::refuse("clock64() reads an SM cycle counter; simulated time says nothing about GPU cycles");
}

namespace gpulab::kern {

template <class T>
using GlobalPtr = sim::GlobalPtr<T>;
template <class T>
using SharedPtr = sim::SharedPtr<T>;

template <class T>
inline SharedPtr<T> dynamic_shared() {
    return sim::detail::dynamic_shared_base<T>();
}

inline GlobalPtr<const float4> as_float4(GlobalPtr<const float> p) { return sim::reinterpret<const float4>(p); }
inline GlobalPtr<float4> as_float4(GlobalPtr<float> p) { return sim::reinterpret<float4>(p); }

}  // namespace gpulab::kern
