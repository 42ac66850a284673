// The device environment for the host compiler: what a kernel header (activation_kernel.cuh,
// conv2d_kernels.cuh) needs from CUDA, supplied by the SIMT simulator. Include it first, then the
// kernel headers, in a translation unit that includes no CUDA header. Its twin for nvcc is
// kernels/cuda/cuda_device_env.cuh; the kernel headers compile unchanged against either.
//
//   CUDA                      here
//   __global__ __device__     nothing: a kernel is a plain function, run once per fiber
//   __shared__ T a[N]         GPULAB_STATIC_SHARED(T, a, N): the block's own array, checked and
//                             counted like dynamic shared memory (a plain __shared__ is refused at
//                             compile time: a macro cannot make a raw array checked)
//   threadIdx blockIdx ...    the running fiber's built-in variables
//   __syncthreads()           the block barrier of sim_runtime.cpp (records the line, for messages)
//   GlobalPtr<T>, SharedPtr<T>  checked pointers (T* under nvcc)
//   dynamic_shared<T>()       the block's dynamic shared memory (extern __shared__ under nvcc)
//   as_float4(p)              reinterpret a float pointer as float4 (alignment checked on access)
//   __syncwarp __ballot_sync  a rendezvous of the lanes in the mask, with CUDA's results (see
//   __any_sync __all_sync     sim_runtime.h for what ends a launch)
//   __shfl_sync __shfl_up_sync __shfl_down_sync __shfl_xor_sync
//   mma.sync.aligned.m16n8k16 kern::mma_sync_m16n8k16<In>(d, a, b, c): a rendezvous of the warp's 32
//   (inline PTX under nvcc)   lanes that gathers their fragments, computes D = A x B + C and scatters
//                             D back (sim_mma.h); a lane missing is an error sentence
//   __activemask(), clock64() refused with a sentence (the fibers of a warp run one after another,
//                             so which lanes a GPU would run together, and its cycles, are not modelled)
//
// Verified by tests/test_sim.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sim_mma.h"
#include "sim_runtime.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__
#define __shared__ static_assert(false, "in the simulator, declare a static shared array with GPULAB_STATIC_SHARED(T, name, count)");
// A name for the site of each declaration: one address per function (per template instantiation).
#define GPULAB_STATIC_SHARED(T, name, count)            \
    static constexpr char name##_gpulab_site = 0;          \
    const ::gpulab::kern::SharedPtr<T> name = ::gpulab::sim::detail::static_shared<T>((count), &name##_gpulab_site, #name)
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

inline void __syncwarp(unsigned mask = 0xffffffffu) {
    ::gpulab::sim::detail::warp_op(::gpulab::sim::WarpOp::SyncWarp, mask, 0, 0, 32, "__syncwarp()");
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
    return static_cast<unsigned>(::gpulab::sim::detail::warp_op(::gpulab::sim::WarpOp::Ballot, mask, predicate != 0,
                                                                0, 32, "__ballot_sync()"));
}
inline int __any_sync(unsigned mask, int predicate) {
    return static_cast<int>(
        ::gpulab::sim::detail::warp_op(::gpulab::sim::WarpOp::Any, mask, predicate != 0, 0, 32, "__any_sync()"));
}
inline int __all_sync(unsigned mask, int predicate) {
    return static_cast<int>(
        ::gpulab::sim::detail::warp_op(::gpulab::sim::WarpOp::All, mask, predicate != 0, 0, 32, "__all_sync()"));
}

namespace gpulab::sim::detail {
template <class T>
T shuffle(WarpOp op, unsigned mask, T var, int arg, int width, const char* name) {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "shuffles move 4- or 8-byte values");
    uint64_t bits = 0;
    std::memcpy(&bits, &var, sizeof(T));
    bits = warp_op(op, mask, bits, arg, width, name);
    std::memcpy(&var, &bits, sizeof(T));
    return var;
}
}  // namespace gpulab::sim::detail

template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize) {
    return ::gpulab::sim::detail::shuffle(::gpulab::sim::WarpOp::Shfl, mask, var, src_lane, width, "__shfl_sync()");
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return ::gpulab::sim::detail::shuffle(::gpulab::sim::WarpOp::ShflUp, mask, var, static_cast<int>(delta), width,
                                          "__shfl_up_sync()");
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize) {
    return ::gpulab::sim::detail::shuffle(::gpulab::sim::WarpOp::ShflDown, mask, var, static_cast<int>(delta), width,
                                          "__shfl_down_sync()");
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
    return ::gpulab::sim::detail::shuffle(::gpulab::sim::WarpOp::ShflXor, mask, var, lane_mask, width,
                                          "__shfl_xor_sync()");
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

// The tensor-core instruction (kernels/tensor/mma_device_cuda.cuh is its nvcc twin): this lane's
// registers go to the warp's rendezvous, and its four D values come back.
template <MmaInput In>
inline void mma_sync_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4]) {
    sim::MmaLaneOperands lane{{a[0], a[1], a[2], a[3]}, {b[0], b[1]}, {c[0], c[1], c[2], c[3]}, {}};
    sim::detail::mma_sync(In, lane);
    for (int i = 0; i < 4; ++i) d[i] = lane.d[i];
}

}  // namespace gpulab::kern
