// Monotonic time in integer nanoseconds: every CPU-side duration in gpulab comes from here.
#pragma once

#include <chrono>
#include <cstdint>

namespace gpulab::core {

inline int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace gpulab::core
