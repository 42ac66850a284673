// Elementwise activation kernels: out[i] = f(in[i]) for ReLU, leaky ReLU, sigmoid, tanh and GELU.
//
// What it computes: exactly the per-element formula of core/hd_math.h (gpulab::hd::relu, ...), the
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
//   step, fully coalesced. When `in` and `out` sit at different offsets modulo 16 bytes no single
//   head aligns both, so the whole range goes through the scalar loop instead (head = n).
//
// Grid: enough blocks to fill every SM at full residency (SMs x resident blocks per SM, from the
// occupancy calculator), fewer when the array is small. More blocks than that would only queue;
// the grid-stride loop covers the rest, and each thread then does several float4s in turn.
//
// Verified by tests/test_gpu_backends.cpp ("cuda-kernel equals cpu-scalar" for every activation at
// sizes 1, 31, 33, 1000 and 2^20+7, and the offset test that starts in/out at 1..3 floats past a
// 16-byte boundary, in step and out of step).
#include "activation.cuh"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "cuda_check.cuh"
#include "hd_math.h"

namespace gpulab::cuda {

namespace {

constexpr int kThreads = 256;

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
__global__ void activation_kernel(const float* in, float* out, int64_t head, int64_t n_vec, int64_t n, F f) {
    const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;

    for (int64_t i = first; i < head; i += stride) out[i] = f(in[i]);

    const float4* in4 = reinterpret_cast<const float4*>(in + head);
    float4* out4 = reinterpret_cast<float4*>(out + head);
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

// Blocks of activation_kernel<F> that can be resident at once on the current device, cached per
// device. Asked of the occupancy calculator rather than assumed from threads per SM: ptxas gives
// some variants more than 32 registers, so fewer than 8 blocks of 256 fit per SM, and the blocks
// that do not fit would run as a second, nearly empty wave, doubling the time of a grid-stride
// kernel whose blocks all have equal work.
template <class F>
int resident_blocks() {
    static std::mutex m;
    static std::map<int, int> cache;
    int device = 0;
    GPULAB_CUDA_CHECK(cudaGetDevice(&device));
    std::lock_guard<std::mutex> lock(m);
    auto it = cache.find(device);
    if (it != cache.end()) return it->second;
    int sms = 0, per_sm = 0;
    GPULAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    GPULAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, activation_kernel<F>, kThreads, 0));
    const int blocks = std::max(1, sms * std::max(1, per_sm));
    cache[device] = blocks;
    return blocks;
}

template <class F>
void launch(const float* d_in, float* d_out, int64_t n, cudaStream_t stream, F f) {
    const auto a_in = reinterpret_cast<std::uintptr_t>(d_in);
    const auto a_out = reinterpret_cast<std::uintptr_t>(d_out);
    if (a_in % alignof(float) != 0 || a_out % alignof(float) != 0) {
        throw CudaError("launch_activation: device pointers must be aligned to a float (4 bytes)");
    }
    int64_t head = n;  // scalar everything unless one head aligns both pointers
    int64_t n_vec = 0;
    if (a_in % sizeof(float4) == a_out % sizeof(float4)) {
        const auto misalign = static_cast<int64_t>(a_in % sizeof(float4));  // 0, 4, 8 or 12 bytes
        head = std::min<int64_t>(misalign == 0 ? 0 : (static_cast<int64_t>(sizeof(float4)) - misalign) / 4, n);
        n_vec = (n - head) / 4;
    }
    const int64_t tail = n - head - 4 * n_vec;
    const int64_t work = std::max({head, n_vec, tail});  // the longest of the three loops
    const int64_t wanted = (work + kThreads - 1) / kThreads;
    const int blocks = static_cast<int>(std::clamp<int64_t>(wanted, 1, resident_blocks<F>()));
    activation_kernel<<<blocks, kThreads, 0, stream>>>(d_in, d_out, head, n_vec, n, f);
    GPULAB_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_activation(const core::OpDesc& op, const float* d_in, float* d_out, int64_t n, cudaStream_t stream) {
    if (n <= 0) return;  // a launch with zero blocks is an error; there is nothing to do
    if (d_in == nullptr || d_out == nullptr) throw CudaError("launch_activation: null device pointer");
    switch (op.activation) {
        case core::Activation::Relu: return launch(d_in, d_out, n, stream, ReluOp{});
        case core::Activation::LeakyRelu: return launch(d_in, d_out, n, stream, LeakyReluOp{op.leaky_alpha});
        case core::Activation::Sigmoid: return launch(d_in, d_out, n, stream, SigmoidOp{});
        case core::Activation::Tanh: return launch(d_in, d_out, n, stream, TanhOp{});
        case core::Activation::Gelu: return launch(d_in, d_out, n, stream, GeluOp{});
    }
    throw CudaError("launch_activation: unknown activation " + std::to_string(static_cast<int>(op.activation)));
}

}  // namespace gpulab::cuda
