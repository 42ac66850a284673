// The real CUDA kernels (activation_kernel.cuh, conv2d_kernels.cuh) run on the SIMT simulator, with
// the launch configuration their CUDA launchers use. Plain C++; what cuda-sim and the tests call.
// Implemented in sim_kernels.cpp, the one file that compiles the kernel headers with the host
// compiler. Never throws: a refused launch or a failed check is Result::error.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "ops/conv2d.h"
#include "conv2d/conv2d_launch.h"
#include "ops/op_desc.h"
#include "sim_mma.h"
#include "sim_runtime.h"
#include "tensor/mma_launch.h"

namespace gpulab::sim {

// Blocks of `threads_per_block` resident at once on the modelled GPU (kModelSms SMs of
// kModelThreadsPerSm threads), what the CUDA launcher asks the occupancy calculator on a device.
int model_resident_blocks(int threads_per_block);

// activation_kernel over [0, n): `in` and `out` point into simulator buffers (any float offset).
Result run_activation(const core::OpDesc& op, GlobalPtr<const float> in, GlobalPtr<float> out, int64_t n,
                      const Options& options = {});

// The naive or tiled convolution kernel for a shape kern::conv2d_kernel_problem accepts; `s` is
// kern::conv2d_shape(d), or a variant of it (the tests change the tile pitch).
Result run_conv2d(kern::Conv2dKernel which, const kern::ConvShape& s, GlobalPtr<const float> in,
                  GlobalPtr<const float> filters, GlobalPtr<float> out, const Options& options = {});

// Why cuda-sim does not run the SIMD-vs-MIMD lesson's divergence kernel (kernels/probes/divergence.cu):
// one sentence, from the simulator's own refusal of a stand-in kernel that makes the same two reads
// (the warp's active mask, the SM's cycle counter), plus where the real kernel does them.
std::string divergence_kernel_refusal();

// [SECTION] the tensor-core kernel (kernels/tensor/mma_kernels.cuh)

// D (m x n) = A (m x k) x B (k x n) + C on the simulated tensor-core kernel: row-major floats in
// and out, A and B rounded to `in` (FP16 or BF16, round to nearest even), FP32 accumulation; `c`
// may be nullptr (zeros). Padded to whole tiles and launched with the grid of mma_gemm_launch, as
// the CUDA launcher does. A size the kernel does not take is Result::error.
// `kernel`: the warp kernel (one warp per 16 x 8 tile: the lane view's) or the tiled one (64 x 64
// blocks through shared memory); the same sums in the same order, so the same results.
Result run_mma_gemm(kern::MmaInput in, const float* a, const float* b, const float* c, float* d, int64_t m, int64_t n,
                    int64_t k, const Options& options = {}, kern::MmaKernel kernel = kern::MmaKernel::Warp);

// Which element of A, B, C and D each of the 32 lanes held at the instruction, read from the
// simulated kernel itself: one 16 x 8 x 16 launch whose A, B and C hold their own coordinates
// (A[r][k] = 16 r + k, B[k][n] = 8 k + n, C[r][n] = 8 r + n, exact in FP16 and BF16), recorded at the
// mma.sync rendezvous (sim_mma.h), then a second launch with B = 0, so D = C names D's elements.
// ok=false with the reason when a launch fails or the lanes did not hold each element exactly once.
struct LaneElement {
    int8_t row = -1, col = -1;
};
struct MmaLaneData {
    bool ok = false;
    std::string error;
    kern::MmaInput input = kern::MmaInput::Fp16;
    std::array<std::array<LaneElement, kern::kMmaAElements>, 32> a{};  // lane, then a0 .. a7
    std::array<std::array<LaneElement, kern::kMmaBElements>, 32> b{};  // b0 .. b3 (row = k)
    std::array<std::array<LaneElement, kern::kMmaCElements>, 32> c{};
    std::array<std::array<LaneElement, kern::kMmaCElements>, 32> d{};
    int instructions = 0;  // mma.sync executions recorded (1 per launch)
    // The lane holding each element, for drawing: -1 where none did.
    std::array<std::array<int8_t, kern::kMmaK>, kern::kMmaM> a_owner{};
    std::array<std::array<int8_t, kern::kMmaN>, kern::kMmaK> b_owner{};
    std::array<std::array<int8_t, kern::kMmaN>, kern::kMmaM> c_owner{};
    std::array<std::array<int8_t, kern::kMmaN>, kern::kMmaM> d_owner{};
};
MmaLaneData mma_lane_data(kern::MmaInput in);

}  // namespace gpulab::sim
