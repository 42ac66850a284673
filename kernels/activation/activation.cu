// The activation kernel's CUDA launcher: out[i] = f(in[i]) for ReLU, leaky ReLU, sigmoid, tanh and
// GELU on one stream.
//
// The kernel itself (formula, thread-to-data mapping, the float4 head/body/tail picture) is in
// activation_kernel.cuh, which the SIMT simulator compiles too; the split and grid come from
// activation_launch.h, which the simulator calls with a modelled device. What is GPU-only here: the
// occupancy query for the grid size, and the launch itself.
//
// Grid: enough blocks to fill every SM at full residency (SMs x resident blocks per SM, from the
// occupancy calculator), fewer when the array is small. More blocks than that would only queue;
// the grid-stride loop covers the rest, and each thread then does several float4s in turn.
//
// Verified by tests/test_gpu_backends.cpp (cuda-kernel on a GPU; the same test body on cuda-sim
// everywhere).
#include "activation.cuh"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "cuda/cuda_check.cuh"
#include "cuda/cuda_device_env.cuh"

#include "activation_kernel.cuh"
#include "activation_launch.h"

namespace gpulab::cuda {

namespace {

using kern::activation_kernel;

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
    GPULAB_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, activation_kernel<F>, kern::kActivationThreads, 0));
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
    const kern::ActivationSplit split = kern::activation_split(a_in, a_out, n);
    const kern::LaunchShape l = kern::activation_launch(split, resident_blocks<F>());
    activation_kernel<<<l.grid.x, l.block.x, l.shared_bytes, stream>>>(d_in, d_out, split.head, split.n_vec, n, f);
    GPULAB_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_activation(const core::OpDesc& op, const float* d_in, float* d_out, int64_t n, cudaStream_t stream) {
    if (n <= 0) return;  // a launch with zero blocks is an error; there is nothing to do
    if (d_in == nullptr || d_out == nullptr) throw CudaError("launch_activation: null device pointer");
    const auto run = [&](auto f) {
        launch(d_in, d_out, n, stream, f);
        return true;
    };
    const bool known = kern::with_activation_op(op, run, false);
    if (!known) {
        throw CudaError("launch_activation: unknown activation " + std::to_string(static_cast<int>(op.activation)));
    }
}

}  // namespace gpulab::cuda
