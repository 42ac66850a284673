// The tensor-core GEMM's launch configuration and its operands in memory, shared by the CUDA
// launcher (mma_gemm.cu) and the SIMT simulator (sim/sim_kernels.cpp). Plain C++.
//
// The kernel (mma_kernels.cuh) works on whole 16 x 8 x 16 tiles, so a problem is padded up to
// multiples of 16 (M), 8 (N) and 16 (K) with zeros, which add nothing to any sum. In memory:
//   A  padded M x K, row-major, 16-bit elements (FP16 or BF16 bit patterns, RNE from float through
//      core::encode), read as 32-bit pairs: pair p of a row = columns 2p (low half) and 2p + 1
//   Bt B transposed, padded N x K, row-major, the same pairs: a lane's b0, b1 (rows 2t, 2t+1 of B,
//      one column) are then one 32-bit load, as the .col qualifier of mma.sync describes B
//   C, D padded M x N, row-major FP32
// Warp: one warp per 16 x 8 tile of D, kMmaWarpsPerBlock warps per block, one block per that many
// tiles. Tiled: one block of kMmaWarpsPerBlock warps per 64 x 64 tile of D (grid x over N, y over M).
// Verified by tests/test_tensor_kernel.cpp (padding, packing, the grid).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/launch_shape.h"
#include "mma_fragment.h"

namespace gpulab::kern {

inline constexpr unsigned kMmaWarpsPerBlock = 4;
inline constexpr unsigned kMmaThreadsPerBlock = 32 * kMmaWarpsPerBlock;

// Two kernels on the same operands (mma_kernels.cuh):
//   Warp   one warp per 16 x 8 tile of D, its fragments read straight from global memory: the
//          lesson's picture of one instruction (the lane view records its single mma.sync).
//   Tiled  a block of 4 warps per 64 x 64 tile of D; each 64 x 32 slice of A and of Bt is staged in
//          shared memory once and read by all four warps, each warp computing a 32 x 32 quarter as
//          2 x 4 mma.sync per 16 values of k. Fewer global loads per product (each A pair serves 64
//          columns instead of 8): the kernel the speed rows and `apply matmul` run.
enum class MmaKernel { Warp, Tiled };
inline constexpr int kMmaBlockTile = 64;     // rows and columns of D per block (Tiled)
inline constexpr int kMmaBlockK = 32;        // values of k per shared-memory slice (16 pairs)
inline constexpr int kMmaSmemStride = 20;    // words per staged row: 16 pairs + 4, so that the 32 lanes'
                                             // fragment loads (row g, pair t) fall in 32 different banks

// The padded problem the kernel sees.
struct MmaGemmShape {
    int m = 0, n = 0, k = 0;  // multiples of 16, 8, 16
    // constexpr: the kernel calls it too (nvcc --expt-relaxed-constexpr).
    constexpr int64_t tiles() const { return int64_t{m / kMmaM} * (n / kMmaN); }
};

// The largest side the kernel takes: offsets stay in 32-bit ints inside the kernel.
inline constexpr int64_t kMmaMaxSide = 1 << 14;

// Empty when m x n x k (each >= 1) fits the kernel, else one sentence.
std::string mma_gemm_problem(int64_t m, int64_t n, int64_t k);
MmaGemmShape mma_gemm_padded(int64_t m, int64_t n, int64_t k);
LaunchShape mma_gemm_launch(const MmaGemmShape& s, MmaKernel kernel = MmaKernel::Warp);
const char* mma_kernel_label(MmaKernel kernel);  // "one warp per 16 x 8 tile", "64 x 64 tiles in shared memory"

// The operands as the kernel reads them (see above), from row-major float A (m x k), B (k x n) and
// C (m x n, or nullptr for zeros), each input rounded to `in` by core::encode.
struct MmaOperands {
    MmaGemmShape shape;
    std::vector<uint32_t> a;   // shape.m x shape.k / 2 pairs
    std::vector<uint32_t> bt;  // shape.n x shape.k / 2 pairs
    std::vector<float> c;      // shape.m x shape.n
};
MmaOperands pack_mma_operands(MmaInput in, const float* a, const float* b, const float* c, int64_t m, int64_t n,
                              int64_t k);
// D's top-left m x n from the padded result.
void unpack_mma_result(const MmaGemmShape& s, const float* d_padded, float* d, int64_t m, int64_t n);

const char* mma_input_label(MmaInput in);  // "FP16", "BF16"

}  // namespace gpulab::kern
