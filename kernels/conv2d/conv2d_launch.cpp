// Host side of the convolution kernels, shared by the CUDA launcher and the SIMT simulator: the
// shape checks and the launch configuration (see conv2d_launch.h). Plain C++, in every build.
#include "conv2d_launch.h"

#include <algorithm>
#include <climits>
#include <string>

namespace gpulab::kern {

namespace {

constexpr int64_t kMaxGridY = 65535;
constexpr int64_t kMaxGridZ = 65535;
// The naive grid-stride loop covers any size; more blocks than this would only queue.
constexpr int64_t kMaxNaiveBlocks = int64_t{1} << 20;

}  // namespace

ConvShape conv2d_shape(const core::Conv2dDesc& d) {
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
    s.tile = conv2d_tile_side(s.kernel, s.stride);
    s.pitch = conv2d_tile_pitch(s.tile);
    return s;
}

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
    if ((d.out_height() + kConv2dTile - 1) / kConv2dTile > kMaxGridY) {
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

LaunchShape conv2d_launch(Conv2dKernel which, const ConvShape& s) {
    LaunchShape l;
    if (which == Conv2dKernel::Naive) {
        const int64_t total = s.planes * s.out_h * s.out_w;
        const int64_t blocks = std::min((total + kConv2dNaiveThreads - 1) / kConv2dNaiveThreads, kMaxNaiveBlocks);
        l.grid.x = static_cast<unsigned>(std::max<int64_t>(blocks, 1));
        l.block.x = kConv2dNaiveThreads;
        return l;
    }
    l.grid.x = static_cast<unsigned>((s.out_w + kConv2dTile - 1) / kConv2dTile);
    l.grid.y = static_cast<unsigned>((s.out_h + kConv2dTile - 1) / kConv2dTile);
    l.grid.z = static_cast<unsigned>(std::min(s.planes, kMaxGridZ));
    l.block.x = kConv2dTile;
    l.block.y = kConv2dTile;
    l.shared_bytes = static_cast<std::size_t>(s.tile * s.pitch + s.kernel * s.kernel) * sizeof(float);
    return l;
}

}  // namespace gpulab::kern
