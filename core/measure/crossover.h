// Where one timing curve crosses another: "the GPU wins above N = ...". Used by the latency
// lesson's size sweep; verified by tests/test_crossover.cpp on synthetic curves (no crossing, one,
// several, noisy).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace gpulab::core {

struct Crossing {
    double size = 0.0;         // interpolated in log-log space between the two bracketing sizes
    bool b_becomes_faster = false;  // true: below `size` A is faster, above it B is
    std::size_t index = 0;     // the last point before the crossing
};

// Finds every crossing of two curves sampled at the same sizes (ascending, positive times).
// A sign change counts only when the new order persists for `persist` points (or until the end),
// so one noisy point does not produce a pair of crossings.
std::vector<Crossing> find_crossings(const std::vector<double>& sizes, const std::vector<double>& time_a,
                                     const std::vector<double>& time_b, int persist = 2);

// The size above which B stays faster than A up to the largest size measured; nullopt when B
// is slower at the largest size, and sizes.front() when B is faster everywhere.
std::optional<double> wins_above(const std::vector<double>& sizes, const std::vector<double>& time_a,
                                 const std::vector<double>& time_b, int persist = 2);

}  // namespace gpulab::core
