// The elementwise activation kernel: out[i] = f(in[i]) for ReLU, leaky ReLU, sigmoid, tanh and
// GELU. One source, two compilers: activation.cu includes it after cuda_device_env.cuh (nvcc, the
// GPU), sim_kernels.cpp after sim/sim_device_env.h (the host compiler, the SIMT simulator). No
// runtime-API calls here; the launch configuration is activation_launch.h.
//
// What it computes: exactly the per-element formula of core/ops/hd_math.h (gpulab::hd::relu, ...), the
// header cpu-scalar also calls, so the GPU and the reference share one formula and differ only in
// how the compilers round expf/tanhf (a few ulp; the tests state the tolerance).
//
// Thread-to-data mapping (one kernel, three grid-stride loops, 64-bit indices throughout):
//
//   element:  0   head          head + 4*n_vec                 n
//             |.. h ..|[ v0 ][ v1 ][ v2 ] ... [ v(n_vec-1) ]|.. t ..|
//   head  h   (0..3 scalars) until `in` reaches a 16-byte boundary, so float4 loads are aligned;
//   body  vk  one float4 per thread per step: thread g handles v(g), v(g + G), v(g + 2G), ...
//             where G = gridDim.x * blockDim.x (the grid stride), so any n fits any grid;
//   tail  t   (0..3 scalars) left over after the last whole float4.
//   Consecutive threads touch consecutive 16-byte chunks: a warp reads 512 contiguous bytes per
//   step, fully coalesced (16 sectors of 32 bytes). When `in` and `out` sit at different offsets
//   modulo 16 bytes no single head aligns both, so the whole range goes through the scalar loop
//   instead (head = n): 128 bytes per warp request, 5 sectors where they start inside one.
//   Both sector counts are the SIMT simulator's, from this kernel's addresses (tests/test_sim.cpp).
//
// Verified by tests/test_gpu_backends.cpp: one test body run on cuda-sim (every machine) and
// cuda-kernel (a GPU): every activation at sizes 1, 31, 33, 1000 and 2^20+7, and the offset test
// that starts in/out at 1..3 floats past a 16-byte boundary, in step and out of step.
#pragma once

#include <cstdint>

#include "ops/hd_math.h"
#include "ops/op_desc.h"

namespace gpulab::kern {

struct ReluOp {
    __device__ float operator()(float x) const { return hd::relu(x); }
};
struct LeakyReluOp {
    float alpha;
    __device__ float operator()(float x) const { return hd::leaky_relu(x, alpha); }
};
struct SigmoidOp {
    __device__ float operator()(float x) const { return hd::sigmoid(x); }
};
struct TanhOp {
    __device__ float operator()(float x) const { return hd::tanh_act(x); }
};
struct GeluOp {
    __device__ float operator()(float x) const { return hd::gelu(x); }
};

// No __restrict__: in place (in == out) is allowed, and each element is read before it is written
// by the same thread, so plain pointers are correct for both cases.
template <class F>
__global__ void activation_kernel(GlobalPtr<const float> in, GlobalPtr<float> out, int64_t head, int64_t n_vec,
                                  int64_t n, F f) {
    const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;

    for (int64_t i = first; i < head; i += stride) out[i] = f(in[i]);

    const GlobalPtr<const float4> in4 = as_float4(in + head);
    const GlobalPtr<float4> out4 = as_float4(out + head);
    for (int64_t i = first; i < n_vec; i += stride) {
        float4 v = in4[i];
        v.x = f(v.x);
        v.y = f(v.y);
        v.z = f(v.z);
        v.w = f(v.w);
        out4[i] = v;
    }

    for (int64_t i = head + 4 * n_vec + first; i < n; i += stride) out[i] = f(in[i]);
}

// Calls fn(op) with the functor of `a` (host code, both paths); returns what fn returns. An
// activation this switch does not know reaches fn never: `unknown` is returned instead.
template <class Fn, class R>
R with_activation_op(const core::OpDesc& op, Fn&& fn, R unknown) {
    switch (op.activation) {
        case core::Activation::Relu: return fn(ReluOp{});
        case core::Activation::LeakyRelu: return fn(LeakyReluOp{op.leaky_alpha});
        case core::Activation::Sigmoid: return fn(SigmoidOp{});
        case core::Activation::Tanh: return fn(TanhOp{});
        case core::Activation::Gelu: return fn(GeluOp{});
    }
    return unknown;
}

}  // namespace gpulab::kern
