// Compares a backend's output with the reference (cpu-scalar), as ggml's test-backend-ops and
// Ginkgo's "IsEquivalentToRef" tests do. The same function gives the app's live verdict.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "tensor.h"

namespace gpulab::core {

struct Tolerance {
    double abs = 1e-6;  // pass when |a-b| <= abs + rel * |ref| for every element
    double rel = 1e-5;
};

struct Comparison {
    bool pass = false;
    double max_abs_error = 0.0;
    double max_rel_error = 0.0;  // |a-b| / max(|ref|, 1e-30), over elements where ref != 0
    int64_t worst_index = -1;    // element with the largest abs error, -1 if identical
    int64_t mismatches = 0;      // elements outside the tolerance (NaN vs number counts)
    std::string verdict;         // "match (max abs 2.4e-07)" or "MISMATCH: 12 elements ..."
};

// NaN equals NaN (both backends followed the NaN policy); NaN vs a number is a mismatch.
Comparison compare(const Tensor& reference, const Tensor& candidate, Tolerance tol = {});
// The same, calling `between_pieces` before every kComparePieceElements elements: a run that may
// be told to stop passes core::throw_if_cancelled (2^26 elements take 70-300 ms to compare).
Comparison compare(const Tensor& reference, const Tensor& candidate, Tolerance tol,
                   const std::function<void()>& between_pieces);
inline constexpr int64_t kComparePieceElements = 1 << 16;

}  // namespace gpulab::core
