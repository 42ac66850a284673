// The tensor-core instruction mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 in the
// SIMT simulator: a rendezvous of the warp's 32 lanes (sim_runtime.h, WarpCollective). When all of
// them have arrived, the 16x16 A, 16x8 B and 16x8 C are gathered from the lanes' registers with the
// PTX ISA's fragment layout (kernels/tensor/mma_fragment.h), D = A x B + C is computed, and each
// lane gets its four D values back.
//
// The arithmetic is a model, stated everywhere it is shown: the 16-bit inputs are decoded exactly
// (core::decode), every product is exact, and each D element is C plus the 16 products added one at
// a time, k = 0 to 15, each addition a fused multiply-add rounded to FP32 (round to nearest even).
// A tensor core's own order and rounding inside the instruction are not documented; on a GPU the
// result may differ in the last bits (the gpu tests allow for it).
//
// Recording (for the lesson's picture, sim::mma_lane_data): while a recorder is set on the calling
// OS thread, every mma.sync executed there appends what each lane held (the decoded values of its
// A, B and C registers) and what it got back in D. Launch with Options::parallel = false so the
// block runs on that thread.
//
// Verified by tests/test_tensor_kernel.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "tensor/mma_fragment.h"

namespace gpulab::sim {

// A lane's registers at one mma.sync, as the instruction takes them.
struct MmaLaneOperands {
    uint32_t a[4];  // eight 16-bit elements, the lower half of each register first
    uint32_t b[2];  // four
    float c[4];
    float d[4];     // written by the instruction
};

// One executed instruction as every lane saw it: values, lane by lane, register element by element.
struct MmaRecord {
    kern::MmaInput input = kern::MmaInput::Fp16;
    std::array<std::array<float, kern::kMmaAElements>, 32> a{};
    std::array<std::array<float, kern::kMmaBElements>, 32> b{};
    std::array<std::array<float, kern::kMmaCElements>, 32> c{};
    std::array<std::array<float, kern::kMmaCElements>, 32> d{};
};

// Records the mma.sync instructions executed on this OS thread into `*out` while set; nullptr stops.
void set_mma_recorder(std::vector<MmaRecord>* out);

namespace detail {
// The calling lane's part in the instruction (what sim_device_env.h's mma_sync_m16n8k16 calls).
void mma_sync(kern::MmaInput input, MmaLaneOperands& lane);
}  // namespace detail

}  // namespace gpulab::sim
