// Two CUDA kernels for 2D convolution (cross-correlation, core/conv2d.h), the lesson's pair:
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
//   Grid: x = ceil(Q / 16) column tiles, y = ceil(P / 16) row tiles, z = one plane (n, k) per
//   block, looping when N*K exceeds the 65535 limit of gridDim.z. Threads whose output falls past
//   P or Q still load and reach both barriers (a barrier must see every thread of the block) but
//   write nothing. With stride 2, neighbouring threads read every other shared-memory word: a
//   2-way bank conflict, the price of one kernel for both strides.
//
// Every launch is followed by GPULAB_CUDA_CHECK_LAUNCH.
//
// Verified by tests/test_gpu_conv2d.cpp (gpu suite): naive and tiled equal cpu-scalar for 1x1,
// 5x7, 33x65 and a C=3 K=4 N=2 layer, kernels 1/3/5/7 (and 15 with stride 4 for the largest
// tile), stride 1 and 2 (and 8, where cuda-kernel runs the naive kernel), zero padding and none;
// K=70000 planes for the tiled kernel's loop over gridDim.z. The tile's index arithmetic was also
// checked by a host emulation of every block and thread against hd::conv2d_point (1560 shapes).
#include "conv2d.cuh"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "cuda_check.cuh"

namespace gpulab::cuda {

namespace {

constexpr int kTile = 16;  // outputs per block side; 256 threads
constexpr int kNaiveThreads = 256;
constexpr int64_t kMaxGridY = 65535;
constexpr int64_t kMaxGridZ = 65535;
// The naive grid-stride loop covers any size; more blocks than this would only queue.
constexpr int64_t kMaxNaiveBlocks = int64_t{1} << 20;

// Every argument of the kernels in one struct: the shape as ints (checked to fit beforehand) and
// the derived tile side.
struct ConvShape {
    int channels, height, width, filters, kernel, pad, stride, out_h, out_w;
    int64_t planes;  // N * K
};

ConvShape shape_of(const core::Conv2dDesc& d) {
    ConvShape s{};
    s.channels = static_cast<int>(d.channels);
    s.height = static_cast<int>(d.height);
    s.width = static_cast<int>(d.width);
    s.filters = static_cast<int>(d.filters);
    s.kernel = static_cast<int>(d.kernel);
    s.pad = static_cast<int>(d.pad());
    s.stride = static_cast<int>(d.stride);
    s.out_h = static_cast<int>(d.out_height());
    s.out_w = static_cast<int>(d.out_width());
    s.planes = d.batch * d.filters;
    return s;
}

int tile_side(int kernel, int stride) { return (kTile - 1) * stride + kernel; }

__global__ void conv2d_naive_kernel(const float* __restrict__ in, const float* __restrict__ filters,
                                    float* __restrict__ out, ConvShape s, int64_t total) {
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

// Dynamic shared memory: the T x T input tile, then the R x R filter slice of the current channel.
__global__ void conv2d_tiled_kernel(const float* __restrict__ in, const float* __restrict__ filters,
                                    float* __restrict__ out, ConvShape s, int tile) {
    extern __shared__ float shared[];
    float* patch = shared;
    float* weights = shared + tile * tile;

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tid = ty * kTile + tx;
    const int p = blockIdx.y * kTile + ty;
    const int q = blockIdx.x * kTile + tx;
    const bool active = p < s.out_h && q < s.out_w;
    const int y0 = static_cast<int>(blockIdx.y) * kTile * s.stride - s.pad;
    const int x0 = static_cast<int>(blockIdx.x) * kTile * s.stride - s.pad;
    const int patch_size = tile * tile;
    const int taps = s.kernel * s.kernel;
    const int64_t plane_size = static_cast<int64_t>(s.height) * s.width;

    for (int64_t plane = blockIdx.z; plane < s.planes; plane += gridDim.z) {
        const int64_t n = plane / s.filters;
        const int64_t k = plane % s.filters;
        const float* image = in + n * s.channels * plane_size;
        const float* filter = filters + k * s.channels * taps;
        float acc = 0.0f;
        for (int c = 0; c < s.channels; ++c) {
            const float* channel = image + c * plane_size;
            for (int i = tid; i < patch_size; i += kTile * kTile) {
                const int y = y0 + i / tile;
                const int x = x0 + i % tile;
                const bool inside = y >= 0 && y < s.height && x >= 0 && x < s.width;
                patch[i] = inside ? channel[static_cast<int64_t>(y) * s.width + x] : 0.0f;
            }
            for (int i = tid; i < taps; i += kTile * kTile) weights[i] = filter[c * taps + i];
            __syncthreads();
            if (active) {
                const float* window = patch + ty * s.stride * tile + tx * s.stride;
                for (int r = 0; r < s.kernel; ++r) {
                    for (int t = 0; t < s.kernel; ++t) acc += window[r * tile + t] * weights[r * s.kernel + t];
                }
            }
            __syncthreads();
        }
        if (active) out[(plane * s.out_h + p) * s.out_w + q] = acc;
    }
}

}  // namespace

std::string conv2d_shape_problem(const core::Conv2dDesc& d) {
    std::string invalid = d.validate();
    if (!invalid.empty()) return invalid;
    if (d.height + 2 * d.pad() < d.kernel || d.width + 2 * d.pad() < d.kernel) {
        return "a " + std::to_string(d.kernel) + "x" + std::to_string(d.kernel) + " kernel does not fit a " +
               std::to_string(d.height) + "x" + std::to_string(d.width) + " input with this padding";
    }
    // The kernels index rows and columns with int, and cuDNN's descriptors take int sizes and
    // strides, so every tensor must have fewer than 2^31 elements. The margin keeps a tile's last
    // column (up to 75 past a block's first input column) inside int as well.
    const double limit = static_cast<double>(INT_MAX) - 256.0;
    const double in = static_cast<double>(d.batch) * d.channels * d.height * d.width;
    const double filt = static_cast<double>(d.filters) * d.channels * d.kernel * d.kernel;
    const double out = static_cast<double>(d.batch) * d.filters * d.out_height() * d.out_width();
    if (in > limit || filt > limit || out > limit) {
        return "the GPU convolutions take tensors of fewer than about 2^31 elements; this shape has " +
               std::to_string(static_cast<int64_t>(std::max({in, filt, out}))) + " in one tensor";
    }
    return "";
}

std::string conv2d_kernel_problem(const core::Conv2dDesc& d) {
    std::string problem = conv2d_shape_problem(d);
    if (!problem.empty()) return problem;
    if (d.kernel > kConv2dMaxKernel) {
        return "our CUDA kernels take filters up to " + std::to_string(kConv2dMaxKernel) + "x" +
               std::to_string(kConv2dMaxKernel) + ", got " + std::to_string(d.kernel) + "x" + std::to_string(d.kernel);
    }
    if (d.stride > kConv2dMaxStride) {
        return "our CUDA kernels take strides up to " + std::to_string(kConv2dMaxStride) + ", got " +
               std::to_string(d.stride);
    }
    if ((d.out_height() + kTile - 1) / kTile > kMaxGridY) {
        return "output height " + std::to_string(d.out_height()) + " needs more than 65535 rows of 16x16 tiles";
    }
    return "";
}

Conv2dKernel conv2d_kernel_for(const core::Conv2dDesc& d) {
    return d.stride <= kConv2dMaxTiledStride ? Conv2dKernel::Tiled : Conv2dKernel::Naive;
}

const char* conv2d_kernel_label(Conv2dKernel which) {
    return which == Conv2dKernel::Tiled ? "tiled 16x16 + halo, shared memory" : "naive, one thread per output";
}

void launch_conv2d(Conv2dKernel which, const core::Conv2dDesc& d, const float* d_input, const float* d_filters,
                   float* d_output, cudaStream_t stream) {
    const std::string problem = conv2d_kernel_problem(d);
    if (!problem.empty()) throw CudaError("launch_conv2d: " + problem);
    if (d_input == nullptr || d_filters == nullptr || d_output == nullptr) {
        throw CudaError("launch_conv2d: null device pointer");
    }
    if (which == Conv2dKernel::Tiled && d.stride > kConv2dMaxTiledStride) {
        throw CudaError("launch_conv2d: the tiled kernel takes strides up to " + std::to_string(kConv2dMaxTiledStride) +
                        ", got " + std::to_string(d.stride));
    }
    const ConvShape s = shape_of(d);
    if (which == Conv2dKernel::Naive) {
        const int64_t total = d.output_elements();
        const int64_t blocks = std::min((total + kNaiveThreads - 1) / kNaiveThreads, kMaxNaiveBlocks);
        conv2d_naive_kernel<<<static_cast<unsigned>(blocks), kNaiveThreads, 0, stream>>>(d_input, d_filters, d_output,
                                                                                        s, total);
        GPULAB_CUDA_CHECK_LAUNCH();
        return;
    }
    const int tile = tile_side(s.kernel, s.stride);
    const std::size_t shared_bytes = static_cast<std::size_t>(tile * tile + s.kernel * s.kernel) * sizeof(float);
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>((d.out_width() + kTile - 1) / kTile),
                    static_cast<unsigned>((d.out_height() + kTile - 1) / kTile),
                    static_cast<unsigned>(std::min(s.planes, kMaxGridZ)));
    conv2d_tiled_kernel<<<grid, block, shared_bytes, stream>>>(d_input, d_filters, d_output, s, tile);
    GPULAB_CUDA_CHECK_LAUNCH();
}

cudaError_t conv2d_kernel_image_check(cudaFuncAttributes& attr) {
    return cudaFuncGetAttributes(&attr, conv2d_tiled_kernel);
}

int conv2d_tiled_blocks_per_sm(int kernel, int stride) {
    const int tile = tile_side(kernel, stride);
    const std::size_t shared_bytes = static_cast<std::size_t>(tile * tile + kernel * kernel) * sizeof(float);
    int per_sm = 0;
    GPULAB_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, conv2d_tiled_kernel, kTile * kTile, shared_bytes));
    return per_sm;
}

}  // namespace gpulab::cuda
