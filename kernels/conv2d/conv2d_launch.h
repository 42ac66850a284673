// The convolution kernels' launch configurations and the shape checks the GPU backends share, as
// plain C++: cuda-kernel, cuda-naive and cudnn (through conv2d.cuh) and the SIMT simulator's
// cuda-sim all call these, so the simulator runs exactly the grid and shared memory the GPU would.
// The kernels themselves are in conv2d_kernels.cuh; tests/test_gpu_conv2d.cpp verifies them on
// cuda-sim everywhere and cuda-kernel on a GPU, tests/test_sim.cpp the configurations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ops/conv2d.h"
#include "cuda/launch_shape.h"

namespace gpulab::kern {

enum class Conv2dKernel {
    Naive,  // one thread per output element, every tap read from global memory (hd::conv2d_point)
    Tiled,  // 16x16 outputs per block from one shared-memory input tile with its halo
};

inline constexpr int kConv2dTile = 16;  // outputs per block side; 256 threads
inline constexpr int kConv2dNaiveThreads = 256;

// Largest filter side and stride the kernels take (core's validate() allows the same). The tiled
// kernel stops at stride 4: its largest tile is 75 rows of 80 floats (pitch, below) = 23.4 KiB of
// shared memory, inside the 48 KiB every device offers without opting in, and past stride 4
// neighbouring windows share few or no inputs, so a tile would have nothing to reuse. cuda-kernel
// runs the naive kernel there and says so in its implementation string.
inline constexpr int kConv2dMaxKernel = 15;
inline constexpr int kConv2dMaxStride = 8;
inline constexpr int kConv2dMaxTiledStride = 4;

// Every argument of the kernels in one struct: the shape as ints (checked to fit beforehand), the
// tiled kernel's tile side and the row pitch of the tile in shared memory.
struct ConvShape {
    int channels, height, width, filters, kernel, pad, stride, out_h, out_w;
    int64_t planes;  // N * K
    int tile;        // input rows and columns one block needs: 15 * stride + kernel
    int pitch;       // floats from one tile row to the next in shared memory (>= tile)
};

// Tile side for a block of kConv2dTile x kConv2dTile outputs.
constexpr int conv2d_tile_side(int kernel, int stride) { return (kConv2dTile - 1) * stride + kernel; }

// The row pitch that keeps a warp's window reads free of bank conflicts at stride 1: a warp is two
// rows of 16 threads (ty, ty + 1), reading words w + tx and w + pitch + tx; with pitch = 16 (mod 32)
// the second half-warp's 16 banks are exactly the ones the first leaves free. The smallest such
// pitch >= tile: 16 for tile 16, 48 for tiles 17..48, 80 for 49..80.
constexpr int conv2d_tile_pitch(int tile) { return tile + ((16 - tile) % 32 + 32) % 32; }

ConvShape conv2d_shape(const core::Conv2dDesc& d);

// Empty when `d` describes a convolution at all: core's Conv2dDesc::validate() (what the reference
// accepts), a kernel that fits the padded input, and tensors that fit the int arithmetic of the
// kernels and cuDNN's descriptors. Else one sentence for the user.
std::string conv2d_shape_problem(const core::Conv2dDesc& d);

// conv2d_shape_problem plus the limits of our own kernels (kernel side, stride, grid size).
std::string conv2d_kernel_problem(const core::Conv2dDesc& d);

// The one line that names what runs, for the peers table.
const char* conv2d_kernel_label(Conv2dKernel which);

// The kernel cuda-kernel runs for `d`: Tiled up to kConv2dMaxTiledStride, Naive beyond.
Conv2dKernel conv2d_kernel_for(const core::Conv2dDesc& d);

// Grid, block and dynamic shared bytes of `which` for `s` (a shape conv2d_kernel_problem accepts):
//   naive  1-D grid-stride: ceil(N*K*P*Q / 256) blocks of 256, at most 2^20 blocks;
//   tiled  ceil(Q / 16) x ceil(P / 16) x min(N*K, 65535) blocks of 16 x 16, tile * pitch + R * R
//          floats of shared memory (the tile, then the filter slice of one channel).
LaunchShape conv2d_launch(Conv2dKernel which, const ConvShape& s);

}  // namespace gpulab::kern
