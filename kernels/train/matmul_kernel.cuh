// The dense layers' matrix products as one tiled (shared-memory) CUDA kernel. One source, two
// compilers (cuda_device_env.cuh for nvcc, sim/sim_device_env.h for the SIMT simulator); launch
// configuration from train_launch.h's matmul_launch, which both paths call.
//
//   C (rows x cols, row-major) = A (rows x depth) * B (depth x cols)  [+ bias[col]]
//
// A and B are read through strides, A(i, d) = a[i * a_row + d * a_col], so one kernel serves the
// three products of a dense layer without transposing anything in memory (x: n x in, W: out x in):
//   forward          y  = x * W^T      A = x  (a_row = in, a_col = 1),  B(d=i, j=o) = W (1, in)
//   backward-data    dx = dy * W       A = dy (out, 1),                 B(d=o, j=i) = W (in, 1)
//   backward-weights dW = dy^T * x     A(i=o, d=m) = dy (1, out),       B(d=m, j=i) = x (in, 1)
//
// Tiling: a block of 16 x 16 threads owns a 16 x 16 tile of C, thread (ty, tx) the output
// (row0 + ty, col0 + tx). The depth is walked 16 at a time: the block copies a 16 x 16 tile of A
// and one of B into shared memory (each thread one element of each; out-of-range elements are 0,
// so partial tiles need no bounds checks in the inner loop), waits at a barrier, then each thread
// multiplies its row of the A tile by its column of the B tile (16 multiply-adds from shared
// memory), and a second barrier protects the tiles before the next step overwrites them. Each
// element of A and B is so read from global memory rows/16 (or cols/16) times instead of once per
// output: 16x fewer global reads than one thread per output reading its whole row and column.
//
// Coalesced tile loads (issue 30): the lanes of a warp (consecutive tx) load along whichever
// dimension of the operand is contiguous in memory. Loading A(row0 + ty, d0 + tx) is contiguous
// when a_col == 1 (x, dy as stored); for dW = dy^T * x, A = dy^T has a_col = out, so lanes would
// read addresses `out` floats apart, one 32-byte sector each. There the lanes take the row
// instead, A(row0 + tx, d0 + ty), which is contiguous (a_row == 1), and write it transposed into
// the tile. The same for B (W^T in the forward product, b_row == 1). The tiles' rows are
// kMatmulPad = 17 floats apart, so the transposed stores (17 * tx apart) fall in 16 different
// banks: conflict-free, as are the reads below.
//
// Shared-memory banks: within a warp (two rows ty, ty + 1 of 16 threads) the A-tile read
// ta[ty * 17 + d] is one word per half-warp (a broadcast) and the B-tile read tb[d * 17 + tx] is 16
// consecutive words: conflict-free.
//
// Accumulation in float, starting from the bias (as cpu-scalar's dense forward), depth in order.
//
// Verified by tests/test_gpu_train.cpp against cpu-scalar's dense_forward, dense_backward_data and
// dense_backward_weights (sizes not multiples of 16, so partial tiles on every edge), on the
// simulator (which also checks every barrier interval for shared-memory races) and on a GPU where
// there is one.
#pragma once

#include <cstdint>

#include "train_launch.h"

namespace gpulab::kern {

// The kernels are `static` (internal linkage): every translation unit that includes this header
// (the simulator's layer table and engine, the cuda-kernel and cudnn engines) compiles its own
// copy, so several may include it without clashing at link time.

struct MatmulShape {
    int64_t rows, cols, depth;
    int64_t a_row, a_col;  // A(i, d) = a[i * a_row + d * a_col]
    int64_t b_row, b_col;  // B(d, j) = b[d * b_row + j * b_col]
};

// bias may be null when has_bias is 0: it is then never read.
static __global__ void matmul_tiled_kernel(GlobalPtr<const float> a, GlobalPtr<const float> b, GlobalPtr<const float> bias,
                                    GlobalPtr<float> c, MatmulShape s, int has_bias) {
    const SharedPtr<float> ta = dynamic_shared<float>();  // ta[i * kMatmulPad + d] = A(row0 + i, d0 + d)
    const SharedPtr<float> tb = ta + kMatmulTile * kMatmulPad;  // tb[d * kMatmulPad + j] = B(d0 + d, col0 + j)
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kMatmulTile, col0 = static_cast<int64_t>(blockIdx.x) * kMatmulTile;
    const int64_t row = row0 + ty, col = col0 + tx;
    // Which element of each tile this thread loads: along the operand's contiguous dimension.
    // The same for every thread of the launch, so no lanes diverge.
    const bool a_down = s.a_col != 1 && s.a_row == 1;  // A stored transposed: lanes walk its rows
    const bool b_across = s.b_col != 1 && s.b_row == 1;  // B stored transposed: lanes walk its depth
    const int ai = a_down ? tx : ty, ad = a_down ? ty : tx;
    const int bd = b_across ? tx : ty, bj = b_across ? ty : tx;
    float acc = (has_bias != 0 && col < s.cols) ? static_cast<float>(bias[col]) : 0.0f;
    for (int64_t d0 = 0; d0 < s.depth; d0 += kMatmulTile) {
        const int64_t gi = row0 + ai, gda = d0 + ad, gdb = d0 + bd, gj = col0 + bj;
        ta[ai * kMatmulPad + ad] = (gi < s.rows && gda < s.depth) ? static_cast<float>(a[gi * s.a_row + gda * s.a_col]) : 0.0f;
        tb[bd * kMatmulPad + bj] = (gdb < s.depth && gj < s.cols) ? static_cast<float>(b[gdb * s.b_row + gj * s.b_col]) : 0.0f;
        __syncthreads();
        for (int d = 0; d < kMatmulTile; ++d) acc += ta[ty * kMatmulPad + d] * tb[d * kMatmulPad + tx];
        __syncthreads();
    }
    if (row < s.rows && col < s.cols) c[row * s.cols + col] = acc;
}

}  // namespace gpulab::kern
