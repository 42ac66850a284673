// Two CUDA kernels for 2D convolution (cross-correlation, core/ops/conv2d.h), the lesson's pair. One
// source, two compilers: conv2d.cu includes this header after cuda_device_env.cuh (nvcc, the GPU),
// sim_kernels.cpp after sim/sim_device_env.h (the host compiler, the SIMT simulator). No runtime-API
// calls here; grids and shared memory come from conv2d_launch.h.
//
//   out[n][k][p][q] = sum over c, r, s of in[n][c][p*stride + r - pad][q*stride + s - pad] * f[k][c][r][s]
//
// [naive]  conv2d_naive_kernel: one thread per output element, flat index i over N*K*P*Q in
//   output order (q fastest), grid-stride loop, 64-bit indices. Each thread calls
//   hd::conv2d_point, the same function cpu-scalar runs, and so reads all C*R*S of its taps from
//   global memory. Neighbouring threads read overlapping windows: the caches absorb part of that
//   reuse, DRAM traffic and load instructions the rest. That is the teaching point the tiled
//   kernel answers.
//
// [tiled]  conv2d_tiled_kernel: a block of 16 x 16 threads computes a 16 x 16 patch of one output
//   plane (n, k); thread (ty, tx) owns output (p0 + ty, q0 + tx). For each channel c the block
//   first copies the input patch those 256 outputs need, T x T floats with T = 15*stride + R,
//   into shared memory (cooperatively: thread t loads elements t, t + 256, t + 512, ... of the
//   patch in row-major order, so a warp reads consecutive addresses of an input row), and the
//   filter slice f[k][c] (R x R floats) beside it. After a barrier every thread reads its R x R
//   window from shared memory, accumulates, and a second barrier protects the tile before the
//   next channel overwrites it. Out-of-image elements are stored as 0 while loading: that IS the
//   zero padding, so the inner loop has no bounds checks. Summation order (c, then r, then s) is
//   the reference's, so results differ from cpu-scalar only by rounding (FMA contraction).
//
//   The tile for R = 3, stride 1, pad 1 (T = 18); tile element (i, j) holds input
//   (y0 + i, x0 + j) with y0 = p0*stride - pad, x0 = q0*stride - pad:
//
//        tile col:  0   1   2   3   4   5  ...  16  17
//                 +---+---+---+---+---+---+ ... +---+---+
//        row 0    | A | A | A | h | h | h |     | h | h |    A  window of thread (ty 0, tx 0): output (p0, q0)
//                 +---+---+---+---+---+---+ ... +---+---+    B  window of thread (ty 1, tx 2): output
//        row 1    | A | A | X | B | B |   |     |   | h |       (p0 + 1, q0 + 2); a window starts at tile
//                 +---+---+---+---+---+---+ ... +---+---+       row ty*stride, column tx*stride
//        row 2    | A | A | X | B | B |   |     |   | h |    X  read by both windows: each input float is
//                 +---+---+---+---+---+---+ ... +---+---+       fetched from global memory once per block
//        row 3    | h |   | B | B | B |   |     |   | h |       and then read by up to R*R threads
//                 +---+---+---+---+---+---+ ... +---+---+    h  halo: the R - 1 rows and columns beyond
//         ...                                                   the 16 x 16 interior that only the edge
//        row 17   | h | h | h | h | h | h | ... | h | h |       windows reach (zeros outside the image)
//                 +---+---+---+---+---+---+ ... +---+---+
//
//   In shared memory each tile row starts `pitch` floats after the previous one, pitch = the
//   smallest value >= T with pitch = 16 (mod 32): 48 for T = 18 (conv2d_tile_pitch).
//
//   Grid: x = ceil(Q / 16) column tiles, y = ceil(P / 16) row tiles, z = one plane (n, k) per
//   block, looping when N*K exceeds the 65535 limit of gridDim.z. Threads whose output falls past
//   P or Q still load and reach both barriers (a barrier must see every thread of the block) but
//   write nothing.
//
//   Shared-memory banks (32 banks of 4 bytes; a warp's request costs as many passes as the most
//   distinct words that share one bank). A warp is two rows of 16 threads, (ty, tx) and
//   (ty + 1, tx), so for tap (r, t) its two halves read the words
//       w + stride*tx                      (tx = 0..15)
//       w + stride*pitch + stride*tx       one tile row of inputs further down
//   stride 1: the halves are 16 consecutive words each, `pitch` apart. With pitch = 16 (mod 32) the
//     second half lands exactly in the 16 banks the first leaves free: 1 pass, conflict-free.
//     Without padding (pitch = T = 18..30 for R = 3..15) the two halves' bank ranges overlap in
//     T - 16 banks: 2 passes for every window read (issue 13 item 7).
//   stride 2: each half reads every other word, 16 banks of one parity; the other half shifts by
//     2*pitch = 0 (mod 32), onto the same banks: 2 passes, whatever the pitch (a 2 x 16 layout
//     cannot do better; stride 2 is not the lesson's default).
//   stride 4: each half covers 8 banks twice, the other half the same 8: 4 passes.
//   The filter slice is read by every thread at the same address: a broadcast, 1 pass. The
//   cooperative tile stores write 32 consecutive elements of the T x T patch: 1 pass within a
//   tile row, up to 2 where a warp's 32 elements cross into the next (padded) row.
//   Counted by the SIMT simulator from this kernel's real addresses (tests/test_sim.cpp, "the
//   tiled convolution's window reads are conflict-free"): a 64 x 64 input, 3 x 3, stride 1, is
//   2496 warp requests per channel (16 blocks x 156: 12 for stores, 8 warps x 18 reads); with the
//   padded pitch they cost 2656 passes (the 160 extra all in the tile stores, 1.06 per request);
//   with pitch = T, the layout before, 3648 (1152 extra: every one of the 9 window reads of every
//   warp took 2 passes, 1.46 per request).
//
// Verified by tests/test_gpu_conv2d.cpp: one test body on cuda-sim (every machine) and cuda-kernel
// (a GPU): naive and tiled equal cpu-scalar for 1x1, 5x7, 33x65 and a C=3 K=4 N=2 layer, kernels
// 1/3/5/7 (and 15 with stride 4 for the largest tile), stride 1 and 2 (and 8, where cuda-kernel
// runs the naive kernel), zero padding and none; K=70000 planes for the tiled kernel's loop over
// gridDim.z. On cuda-sim every access is also checked against its buffer and every barrier
// interval for shared-memory races.
#pragma once

#include <cstdint>

#include "ops/conv2d.h"
#include "conv2d_launch.h"

namespace gpulab::kern {

__global__ void conv2d_naive_kernel(GlobalPtr<const float> __restrict__ in, GlobalPtr<const float> __restrict__ filters,
                                    GlobalPtr<float> __restrict__ out, ConvShape s, int64_t total) {
    const int64_t grid_stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    const int64_t image_size = static_cast<int64_t>(s.channels) * s.height * s.width;
    const int64_t filter_size = static_cast<int64_t>(s.channels) * s.kernel * s.kernel;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += grid_stride) {
        const int64_t q = i % s.out_w;
        int64_t rest = i / s.out_w;
        const int64_t p = rest % s.out_h;
        rest /= s.out_h;
        const int64_t k = rest % s.filters;
        const int64_t n = rest / s.filters;
        out[i] = hd::conv2d_point(in + n * image_size, filters + k * filter_size, s.channels, s.height, s.width,
                                  s.kernel, s.pad, s.stride, p, q);
    }
}

// Dynamic shared memory: the T x T input tile (rows `pitch` floats apart), then the R x R filter
// slice of the current channel.
__global__ void conv2d_tiled_kernel(GlobalPtr<const float> __restrict__ in, GlobalPtr<const float> __restrict__ filters,
                                    GlobalPtr<float> __restrict__ out, ConvShape s) {
    const SharedPtr<float> patch = dynamic_shared<float>();
    const SharedPtr<float> weights = patch + s.tile * s.pitch;

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * kConv2dTile + tx;
    const int p = blockIdx.y * kConv2dTile + ty;
    const int q = blockIdx.x * kConv2dTile + tx;
    const bool active = p < s.out_h && q < s.out_w;
    const int y0 = static_cast<int>(blockIdx.y) * kConv2dTile * s.stride - s.pad;
    const int x0 = static_cast<int>(blockIdx.x) * kConv2dTile * s.stride - s.pad;
    const int patch_size = s.tile * s.tile;
    const int taps = s.kernel * s.kernel;
    const int64_t plane_size = static_cast<int64_t>(s.height) * s.width;

    for (int64_t plane = blockIdx.z; plane < s.planes; plane += gridDim.z) {
        const int64_t n = plane / s.filters;
        const int64_t k = plane % s.filters;
        const GlobalPtr<const float> image = in + n * s.channels * plane_size;
        const GlobalPtr<const float> filter = filters + k * s.channels * taps;
        float acc = 0.0f;
        for (int c = 0; c < s.channels; ++c) {
            const GlobalPtr<const float> channel = image + c * plane_size;
            for (int i = tid; i < patch_size; i += kConv2dTile * kConv2dTile) {
                const int row = i / s.tile;
                const int col = i % s.tile;
                const int y = y0 + row;
                const int x = x0 + col;
                const bool inside = y >= 0 && y < s.height && x >= 0 && x < s.width;
                patch[row * s.pitch + col] = inside ? channel[static_cast<int64_t>(y) * s.width + x] : 0.0f;
            }
            for (int i = tid; i < taps; i += kConv2dTile * kConv2dTile) weights[i] = filter[c * taps + i];
            __syncthreads();
            if (active) {
                const SharedPtr<const float> window = patch + ty * s.stride * s.pitch + tx * s.stride;
                for (int r = 0; r < s.kernel; ++r) {
                    for (int t = 0; t < s.kernel; ++t) acc += window[r * s.pitch + t] * weights[r * s.kernel + t];
                }
            }
            __syncthreads();
        }
        if (active) out[(plane * s.out_h + p) * s.out_w + q] = acc;
    }
}

}  // namespace gpulab::kern
