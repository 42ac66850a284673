// The activation kernel's launch configuration, shared by the CUDA launcher (activation.cu) and the
// SIMT simulator (sim_kernels.cpp): how [0, n) splits into a scalar head, a float4 body and a
// scalar tail for the given pointers, and the grid. Plain C++. See activation_kernel.cuh for the
// thread-to-data mapping; tests/test_sim.cpp checks the split and grid.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cuda/launch_shape.h"

namespace gpulab::kern {

inline constexpr unsigned kActivationThreads = 256;

struct ActivationSplit {
    int64_t head = 0;   // scalar elements before the first 16-byte boundary (n: all scalar)
    int64_t n_vec = 0;  // float4s after the head
    int64_t n = 0;
};

// Byte addresses of in and out (both float-aligned). One head aligns both only when they sit at the
// same offset modulo 16 bytes; otherwise every element goes through the scalar loop.
inline ActivationSplit activation_split(std::uintptr_t in, std::uintptr_t out, int64_t n) {
    ActivationSplit s;
    s.n = n;
    s.head = n;
    if (in % 16 == out % 16) {
        const auto misalign = static_cast<int64_t>(in % 16);  // 0, 4, 8 or 12 bytes
        s.head = std::min<int64_t>(misalign == 0 ? 0 : (16 - misalign) / 4, n);
        s.n_vec = (n - s.head) / 4;
    }
    return s;
}

// One block of 256 per 256 items of the longest of the three loops, at most `resident_blocks`
// (SMs x blocks resident per SM: more would only queue, the grid-stride loop covers the rest).
inline LaunchShape activation_launch(const ActivationSplit& s, int resident_blocks) {
    const int64_t tail = s.n - s.head - 4 * s.n_vec;
    const int64_t work = std::max({s.head, s.n_vec, tail});
    const int64_t wanted = (work + kActivationThreads - 1) / kActivationThreads;
    LaunchShape l;
    l.grid.x = static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, std::max(1, resident_blocks)));
    l.block.x = kActivationThreads;
    return l;
}

}  // namespace gpulab::kern
