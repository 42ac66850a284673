// The training kernels' launch configurations (train_launch.h). Plain C++, in every build.
#include "train_launch.h"

#include <algorithm>

namespace gpulab::kern {

namespace {
constexpr int64_t kMaxBlocks = int64_t{1} << 16;
}

LaunchShape elementwise_launch(int64_t count) {
    LaunchShape l;
    const int64_t blocks = (std::max<int64_t>(count, 1) + kTrainThreads - 1) / kTrainThreads;
    l.grid.x = static_cast<unsigned>(std::min(blocks, kMaxBlocks));
    l.block.x = kTrainThreads;
    return l;
}

LaunchShape reduction_launch(int64_t outputs, int64_t terms_each) {
    LaunchShape l;
    l.grid.x = static_cast<unsigned>(std::clamp<int64_t>(outputs, 1, 65535));
    unsigned threads = 32;
    while (threads < 256 && static_cast<int64_t>(threads) * 256 < terms_each) threads *= 2;
    l.block.x = threads;
    l.shared_bytes = threads * sizeof(float);
    return l;
}

LaunchShape matmul_launch(int64_t rows, int64_t cols) {
    LaunchShape l;
    l.grid.x = static_cast<unsigned>(std::max<int64_t>((cols + kMatmulTile - 1) / kMatmulTile, 1));
    l.grid.y = static_cast<unsigned>(std::max<int64_t>((rows + kMatmulTile - 1) / kMatmulTile, 1));
    l.block.x = kMatmulTile;
    l.block.y = kMatmulTile;
    l.shared_bytes = 2 * kMatmulTile * kMatmulPad * sizeof(float);  // two padded tiles (matmul_kernel.cuh)
    return l;
}

}  // namespace gpulab::kern
