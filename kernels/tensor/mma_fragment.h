// Which element of A, B, C and D each lane of a warp holds in its registers for the tensor-core
// instruction mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32 (D = A x B + C,
// A 16x16, B 16x8, C and D 16x8). Plain C++.
//
// Source: NVIDIA's PTX ISA, section "Matrix Fragments for mma.m16n8k16 with floating point type"
// (in the chapter on warp-level matrix multiply-accumulate instructions). With g = lane / 4 (the
// PTX ISA's groupID) and t = lane % 4 (threadID_in_group):
//
//   A: four 32-bit registers, two 16-bit elements each, the lower half first: a0 .. a7
//      a_i: row g for i in {0, 1, 4, 5}, row g + 8 for i in {2, 3, 6, 7};
//           column 2t + (i & 1) for i < 4, 2t + (i & 1) + 8 for i >= 4
//   B: two 32-bit registers: b0 .. b3
//      b_i: row (k) 2t + (i & 1) for i < 2, 2t + (i & 1) + 8 for i >= 2; column g
//   C, D: four FP32 registers c0 .. c3
//      c_i: row g for i < 2, g + 8 for i >= 2; column 2t + (i & 1)
//
//   A, 16 x 16 (rows g, g+8; lane 5 = g 1, t 1 marked)        C/D, 16 x 8
//         col 0 1 2 3 ... 8 9 10 11 ...                          col 0 1 2 3 ...
//   row 1   . . 5 5 ... . .  5  5 ...   (a0 a1 .. a4 a5)     row 1   . . 5 5 ...  (c0 c1)
//   row 9   . . 5 5 ... . .  5  5 ...   (a2 a3 .. a6 a7)     row 9   . . 5 5 ...  (c2 c3)
//
// This table is used by the SIMT simulator's mma.sync (kernels/sim/sim_mma.cpp) to gather the
// operands from the 32 lanes and scatter D back. The kernel (mma_kernels.cuh) does not use it: it
// computes its own addresses, as a CUDA kernel must, so a mistake in either shows as a wrong
// product in the tests. What the lesson draws is neither: it is what the simulated lanes held
// (sim::mma_lane_data). Verified by tests/test_tensor_kernel.cpp (worked examples for lane 5, each
// element held by exactly one lane and register).
#pragma once

#include <cstdint>

namespace gpulab::kern {

// The two input types the kernel is built for; both accumulate in FP32.
enum class MmaInput { Fp16, Bf16 };

inline constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
inline constexpr int kMmaAElements = 8, kMmaBElements = 4, kMmaCElements = 4;  // per lane

struct FragmentIndex {
    int row = 0, col = 0;
};

constexpr FragmentIndex mma_a_element(int lane, int i) {
    const int g = lane >> 2, t = lane & 3;
    const bool upper_rows = (i & 2) != 0;  // a2, a3, a6, a7
    const bool right_half = i >= 4;        // a4 .. a7
    return {g + (upper_rows ? 8 : 0), 2 * t + (i & 1) + (right_half ? 8 : 0)};
}

constexpr FragmentIndex mma_b_element(int lane, int i) {
    const int g = lane >> 2, t = lane & 3;
    return {2 * t + (i & 1) + (i >= 2 ? 8 : 0), g};
}

constexpr FragmentIndex mma_cd_element(int lane, int i) {
    const int g = lane >> 2, t = lane & 3;
    return {g + (i >= 2 ? 8 : 0), 2 * t + (i & 1)};
}

}  // namespace gpulab::kern
