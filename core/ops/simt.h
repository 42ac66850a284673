// Warp divergence, the part shared by the CPU emulator and the CUDA kernel (GPULAB_HD): which
// branch a lane takes for each pattern, and the work each branch does. Because both sides call
// these functions, the emulated warp view and the real kernel cannot drift apart.
// Verified by tests/test_simt.cpp (emulator masks and step counts per pattern, hand-checked) and,
// on a GPU, by the gpu suite (the kernel's recorded masks equal the emulator's).
#pragma once

#include <cstdint>

#include "hd_math.h"

namespace gpulab::simt {

inline constexpr int kWarpSize = 32;

enum class Pattern : int {
    Uniform = 0,   // every lane takes path 0: no divergence
    LaneParity,    // even lanes path 0, odd lanes path 1: 2 paths per warp
    FourWay,       // lane % 4: 4 paths
    EightWay,      // lane % 8: 8 paths
    ThirtyTwoWay,  // every lane its own path: 32 paths
    Random,        // a hash of the element index picks one of 8 paths
    PerWarp,       // the whole warp takes path (warp % 8): divergence BETWEEN warps, free
};
inline constexpr int kPatternCount = 7;

// The branch key stored per element; the kernel branches on data read from memory, so the
// compiler cannot know the path at compile time.
GPULAB_HD int pattern_key(Pattern p, int64_t element) {
    const int lane = static_cast<int>(element % kWarpSize);
    const int64_t warp = element / kWarpSize;
    switch (p) {
        case Pattern::Uniform: return 0;
        case Pattern::LaneParity: return lane % 2;
        case Pattern::FourWay: return lane % 4;
        case Pattern::EightWay: return lane % 8;
        case Pattern::ThirtyTwoWay: return lane;
        case Pattern::Random: {
            // A full avalanche mix, so neighbouring lanes are independent: a warp then meets
            // about 7.9 of the 8 paths on average (a weaker hash left visible stripes).
            uint32_t h = static_cast<uint32_t>(element) * 2654435761u;
            h ^= h >> 16;
            h *= 0x45d9f3bu;
            h ^= h >> 16;
            return static_cast<int>(h >> 29);
        }
        case Pattern::PerWarp: return static_cast<int>(warp % 8);
    }
    return 0;
}

// Distinct paths a single warp of this pattern executes: each costs the warp its own instructions,
// whether run one after another or (Volta and later) interleaved.
// Random depends on the data; this is its upper bound (the expected count is 8 (1 - (7/8)^32) ~ 7.9),
// the emulator gives the exact count per warp.
inline constexpr int paths_per_warp(Pattern p) {
    switch (p) {
        case Pattern::Uniform: return 1;
        case Pattern::LaneParity: return 2;
        case Pattern::FourWay: return 4;
        case Pattern::EightWay: return 8;
        case Pattern::ThirtyTwoWay: return 32;
        case Pattern::Random: return 8;
        case Pattern::PerWarp: return 1;
    }
    return 1;
}

}  // namespace gpulab::simt
