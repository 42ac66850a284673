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
// Verified by tests/test_tensor_kernel.cpp (both kernels): on cuda-sim, tiles and whole matrices of several
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

// [SECTION] the tiled kernel
// One block of 4 warps per 64 x 64 tile of D (blockIdx.y: rows, blockIdx.x: columns); warp w computes
// the 32 x 32 quarter (w / 2, w % 2) as 2 x 4 tiles of 16 x 8, so 8 accumulators of 4 floats per lane.
// For each slice of 32 values of k, the block copies the slice's 64 rows of A and 64 rows of Bt (16
// pairs each) into shared memory, every thread 8 words of each, waits at the barrier, and then each
// warp reads its fragments from there, with the same lane layout as the warp kernel above:
//
//   shared A   [64 rows][20 words]   row r, pair p at r * 20 + p   (16 pairs used, 4 of padding)
//   shared Bt  [64 cols][20 words]   the same for B's columns
//
//   per slice, per 16 of k:  a[i] (i = 0, 1: rows g and g + 8 of the warp's 16-row tile i),
//                            b[j] (j = 0..3: column g of its 8-column tile j), then 8 x mma.sync
//
// A lane's fragment loads touch words (row g) * 20 + t: 20 g + t modulo 32 differs for all 32 lanes,
// so none waits on a bank. The copies into shared memory do: a warp writes two rows of 16 words, and
// the second row's last four words share banks with the first row's first four (2 passes; the
// simulator counts 512 passes for 384 requests at 64 x 64 x 64, all the extra ones in the copies). Rows and columns past the padded problem, and pairs past K, load as zero,
// and the second 16 of a slice is skipped where K ends (the whole block skips it: every lane still
// meets every mma.sync). Each output's sum still runs over k = 0, 1, ..., K - 1 in order, one mma.sync
// per 16 of k: the same sums as the warp kernel, so the same numbers. Only the whole block's two
// barriers per slice stand between the copies and the reads; no thread returns before the last.
template <MmaInput In>
__global__ void mma_gemm_tiled_kernel(GlobalPtr<const uint32_t> a, GlobalPtr<const uint32_t> bt,
                                      GlobalPtr<const float> c, GlobalPtr<float> d, MmaGemmShape s) {
    GPULAB_STATIC_SHARED(uint32_t, as, kMmaBlockTile * kMmaSmemStride);
    GPULAB_STATIC_SHARED(uint32_t, bs, kMmaBlockTile * kMmaSmemStride);
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid % 32, warp = tid / 32;
    const int g = lane >> 2, t = lane & 3;
    const int block_m = static_cast<int>(blockIdx.y) * kMmaBlockTile, block_n = static_cast<int>(blockIdx.x) * kMmaBlockTile;
    const int warp_m = (warp / 2) * 32, warp_n = (warp % 2) * 32;  // the warp's quarter inside the block
    const int pairs = s.k / 2;
    constexpr int kSlicePairs = kMmaBlockK / 2;                     // 16 pairs per staged row
    constexpr int kSliceWords = kMmaBlockTile * kSlicePairs;       // 1,024 words of A (and of Bt) per slice

    float acc[2][4][4];
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 4; ++j) {
            const int row0 = block_m + warp_m + i * kMmaM + g, row1 = row0 + 8;
            const int col = block_n + warp_n + j * kMmaN + 2 * t;
            const bool cols_in = col < s.n;  // s.n is a multiple of 8: col and col + 1 are in or out together
            acc[i][j][0] = row0 < s.m && cols_in ? c[row0 * s.n + col] : 0.0f;
            acc[i][j][1] = row0 < s.m && cols_in ? c[row0 * s.n + col + 1] : 0.0f;
            acc[i][j][2] = row1 < s.m && cols_in ? c[row1 * s.n + col] : 0.0f;
            acc[i][j][3] = row1 < s.m && cols_in ? c[row1 * s.n + col + 1] : 0.0f;
        }
    }
    for (int k0 = 0; k0 < s.k; k0 += kMmaBlockK) {
        const int p0 = k0 / 2;
        // Consecutive threads copy consecutive pairs of a row: 16 threads read one row's 64 bytes.
        for (int w = tid; w < kSliceWords; w += static_cast<int>(kMmaThreadsPerBlock)) {
            const int r = w / kSlicePairs, p = w % kSlicePairs;
            const int ar = block_m + r, bc = block_n + r, pp = p0 + p;
            as[r * kMmaSmemStride + p] = ar < s.m && pp < pairs ? a[ar * pairs + pp] : 0u;
            bs[r * kMmaSmemStride + p] = bc < s.n && pp < pairs ? bt[bc * pairs + pp] : 0u;
        }
        __syncthreads();
        for (int half = 0; half < 2; ++half) {
            if (k0 + half * kMmaK >= s.k) break;  // K is a multiple of 16: the same answer for the whole block
            const int p = half * (kMmaK / 2) + t;  // this lane's pair in the staged row
            uint32_t a_regs[2][4], b_regs[4][2];
            for (int i = 0; i < 2; ++i) {
                const int r0 = (warp_m + i * kMmaM + g) * kMmaSmemStride, r1 = r0 + 8 * kMmaSmemStride;
                a_regs[i][0] = as[r0 + p];
                a_regs[i][1] = as[r1 + p];
                a_regs[i][2] = as[r0 + p + 4];
                a_regs[i][3] = as[r1 + p + 4];
            }
            for (int j = 0; j < 4; ++j) {
                const int cn = (warp_n + j * kMmaN + g) * kMmaSmemStride;
                b_regs[j][0] = bs[cn + p];
                b_regs[j][1] = bs[cn + p + 4];
            }
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < 4; ++j) mma_sync_m16n8k16<In>(acc[i][j], a_regs[i], b_regs[j], acc[i][j]);
        }
        __syncthreads();  // before the next slice overwrites what the warps read
    }
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 4; ++j) {
            const int row0 = block_m + warp_m + i * kMmaM + g, row1 = row0 + 8;
            const int col = block_n + warp_n + j * kMmaN + 2 * t;
            if (col >= s.n) continue;
            if (row0 < s.m) {
                d[row0 * s.n + col] = acc[i][j][0];
                d[row0 * s.n + col + 1] = acc[i][j][1];
            }
            if (row1 < s.m) {
                d[row1 * s.n + col] = acc[i][j][2];
                d[row1 * s.n + col + 1] = acc[i][j][3];
            }
        }
    }
}

}  // namespace gpulab::kern
