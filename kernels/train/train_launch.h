// Launch configurations of the training kernels (kernels/train/*.cuh), as plain C++: the CUDA
// engine (cuda-kernel) and the SIMT simulator (cuda-sim) call these same functions, so the
// simulator runs exactly the grid and shared memory a GPU would. Another engine that launches these
// kernels (the cudnn engine uses the loss and update kernels) calls them too.
//
// Verified by tests/test_gpu_train.cpp (every kernel runs on the simulator with these shapes; the
// simulator refuses any launch a GPU would refuse).
#pragma once

#include <cstdint>

#include "cuda/launch_shape.h"

namespace gpulab::kern {

inline constexpr unsigned kTrainThreads = 256;  // threads per block of the 1-D kernels
inline constexpr int kMatmulTile = 16;          // the tiled matrix multiply: 16 x 16 outputs per block
inline constexpr int kMatmulPad = kMatmulTile + 1;  // its shared tiles' row stride: transposed stores miss bank conflicts

// A grid-stride loop over `count` independent items (elements, images, weights): ceil(count / 256)
// blocks of 256 threads, at most 65536 blocks (the loop covers the rest; more blocks would only
// queue). At least one block, so a launch is never empty.
LaunchShape elementwise_launch(int64_t count);

// Sums that each gather many terms (a weight's or a bias's gradient): one block per output value (at
// most 65535 blocks, which then take several outputs each) with a power of two of threads, from one
// warp to 256, about one thread per 256 terms, so a thread's serial share stays near 256 terms
// without starting threads that would have nothing to add (each costs a fiber in the simulator);
// shared memory for the block's tree.
LaunchShape reduction_launch(int64_t outputs, int64_t terms_each);

// One thread per image: the loss kernels. The same shape as elementwise_launch(n); a name of its
// own so a reader sees which mapping a call means.
inline LaunchShape per_image_launch(int64_t n) { return elementwise_launch(n); }

// The tiled matrix multiply C (rows x cols) = A (rows x depth) * B (depth x cols): blocks of
// 16 x 16 threads, one per output, grid ceil(cols / 16) x ceil(rows / 16), and two 16 x 16 float
// tiles of shared memory (2 KiB). rows must be < 65535 * 16 (gridDim.y's limit): the engine's
// setup checks that (matmul_rows_problem).
LaunchShape matmul_launch(int64_t rows, int64_t cols);

// Largest row count matmul_launch covers (65535 tiles of 16).
inline constexpr int64_t kMatmulMaxRows = int64_t{65535} * kMatmulTile;

// [SECTION] the width of the kernels' index arithmetic (issue 30)
//
// The convolution and pooling kernels split a flat index into (n, k, p, q) with / and %. On a GPU a
// 64-bit division is a long instruction sequence (nvcc guards each with a test of the high words
// and a 32-bit fast path, tests/PTX figures in docs/gpu-verification.md), a 32-bit one a short
// one, and 64-bit products take two registers and several instructions. So each of those kernels
// is a template over its index type, instantiated for uint32_t and int64_t, and the launch function
// in train_layers.h picks one here, on the host, once per launch.
//
// The narrow path is taken when every index a kernel forms fits in 31 bits with room for the last
// grid-stride step: the largest tensor it indexes, plus the largest stride of a grid-stride loop
// (kMaxGridStride: 65536 blocks of 256), stays within INT32_MAX. That keeps i + stride from
// wrapping on the last pass. Tests force the wide path on small tensors (IndexMath::Wide), so both
// instantiations run on the simulator.
enum class IndexMath {
    Auto,  // 32-bit where it fits, else 64-bit
    Wide,  // 64-bit always: the path a tensor past 2^31 elements takes, forced for tests
};

inline constexpr int64_t kMaxGridStride = int64_t{1} << 24;  // 65536 blocks x 256 threads

// True when the kernels may use 32-bit indices for tensors of at most `largest` elements.
constexpr bool narrow_index(int64_t largest, IndexMath m = IndexMath::Auto) {
    return m == IndexMath::Auto && largest >= 0 && largest <= int64_t{0x7fffffff} - kMaxGridStride;
}

}  // namespace gpulab::kern
