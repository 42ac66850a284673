// The tensor-core matrix product: D = A x B + C built from the warp-wide instruction
// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32, one 16 x 8 x 16 step at a time.
// One source, two compilers: mma_gemm.cu includes it after cuda/cuda_device_env.cuh and
// mma_device_cuda.cuh (nvcc: the instruction is inline PTX, sm_80 and newer), sim/sim_kernels.cpp
// after sim/sim_device_env.h (the host compiler: the instruction is the SIMT simulator's rendezvous
// of the warp's 32 lanes, kernels/sim/sim_mma.h). No runtime-API calls here; the launch
// configuration and the operands' layout in memory are mma_launch.h.
//
// What each thread does (one warp per 16 x 8 tile of D, tile = blockIdx.x * 4 + warp):
//
//   lane = threadIdx.x % 32, g = lane / 4, t = lane % 4
//   it holds, per PTX ISA "Matrix Fragments for mma.m16n8k16 with floating point type":
//     A: rows g and g+8 of the tile, columns 2t, 2t+1 and 2t+8, 2t+9 of each 16-wide slice of K
//     B: column g of the tile, rows (k) 2t, 2t+1 and 2t+8, 2t+9 of the slice
//     C/D: rows g and g+8, columns 2t, 2t+1
//
//          K ->  slice 0          slice 1  ...          N ->  tile n
//   M  |  A tile [16 x 16] | [16 x 16] | ...       K |   B [16 x 8]
//   |  |                                              |   B [16 x 8]     D tile [16 x 8] = sum over
//   v                                                                    slices of A_s x B_s, plus C
//
//   acc = C (4 floats)
//   for each slice of 16 along K: load 4 A pairs and 2 B pairs (32-bit loads: two 16-bit elements
//   each, see mma_launch.h), then acc = mma(A_slice, B_slice, acc)
//   store acc to D
//
// So the FP32 accumulator carries across slices, and the sum for each output runs over k = 0, 1,
// ..., K-1 in order inside the model the simulator implements (one rounding per product, FP32).
// A warp whose tile lies past the end returns as a whole, before any mma: every warp that reaches
// the instruction has all 32 lanes there, as .aligned requires.
//
// Verified by tests/test_tensor_kernel.cpp: on cuda-sim, tiles and whole matrices of several
// shapes (padding included) equal core::matmul_reduced with the same rounded inputs and FP32
// accumulation, bit for bit; a warp missing a lane is refused; on a GPU (the gpu suite, skipped
// without one) the same comparison within the FP32 summation bound.
#pragma once

#include <cstdint>

#include "mma_fragment.h"
#include "mma_launch.h"

namespace gpulab::kern {

template <MmaInput In>
__global__ void mma_gemm_kernel(GlobalPtr<const uint32_t> a, GlobalPtr<const uint32_t> bt, GlobalPtr<const float> c,
                                GlobalPtr<float> d, MmaGemmShape s) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int64_t tile = static_cast<int64_t>(blockIdx.x) * kMmaWarpsPerBlock + warp;
    if (tile >= s.tiles()) return;  // the whole warp: its tile is past the end
    const int tiles_n = s.n / kMmaN;
    const int tile_m = static_cast<int>(tile / tiles_n), tile_n = static_cast<int>(tile % tiles_n);
    const int g = lane >> 2, t = lane & 3;
    const int row0 = tile_m * kMmaM + g, row1 = row0 + 8;  // this lane's two rows of A, C and D
    const int col = tile_n * kMmaN + 2 * t;                // its two columns of C and D
    const int b_col = tile_n * kMmaN + g;                  // its column of B (a row of Bt)
    const int pairs = s.k / 2;                             // 32-bit pairs per row of A and of Bt

    float acc[4] = {c[row0 * s.n + col], c[row0 * s.n + col + 1], c[row1 * s.n + col], c[row1 * s.n + col + 1]};
    for (int k0 = 0; k0 < s.k; k0 += kMmaK) {
        const int p = k0 / 2 + t;  // the pair holding columns k0 + 2t and k0 + 2t + 1
        const uint32_t a_regs[4] = {a[row0 * pairs + p], a[row1 * pairs + p], a[row0 * pairs + p + 4],
                                    a[row1 * pairs + p + 4]};
        const uint32_t b_regs[2] = {bt[b_col * pairs + p], bt[b_col * pairs + p + 4]};
        mma_sync_m16n8k16<In>(acc, a_regs, b_regs, acc);
    }
    d[row0 * s.n + col] = acc[0];
    d[row0 * s.n + col + 1] = acc[1];
    d[row1 * s.n + col] = acc[2];
    d[row1 * s.n + col + 1] = acc[3];
}

}  // namespace gpulab::kern
