// A kernel launch's geometry as plain C++: what `kernel<<<grid, block, shared_bytes>>>` takes. Each
// kernel has one function that computes it (activation_launch.h, conv2d_launch.h); the CUDA
// launcher and the SIMT simulator both call that function, so the simulator runs exactly the grid
// the GPU would. Verified by tests/test_sim.cpp ("launch configurations").
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpulab::kern {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr int64_t count() const { return int64_t{x} * y * z; }
};

struct LaunchShape {
    Dim3 grid, block;
    std::size_t shared_bytes = 0;  // dynamic shared memory per block
    constexpr int64_t threads() const { return grid.count() * block.count(); }
};

}  // namespace gpulab::kern
