#include "tensor_compare.h"

#include <cmath>
#include <cstdio>

namespace gpulab::core {

Comparison compare(const Tensor& reference, const Tensor& candidate, Tolerance tol) {
    return compare(reference, candidate, tol, {});
}

Comparison compare(const Tensor& reference, const Tensor& candidate, Tolerance tol,
                   const std::function<void()>& between_pieces) {
    Comparison c;
    if (reference.shape != candidate.shape || reference.size() != candidate.size()) {
        c.verdict = "MISMATCH: shape " + candidate.shape_string() + " vs reference " + reference.shape_string();
        c.mismatches = std::max(reference.size(), candidate.size());
        return c;
    }
    const float* r = reference.ptr();
    const float* x = candidate.ptr();
    for (int64_t i = 0; i < reference.size(); ++i) {
        if (between_pieces && i % kComparePieceElements == 0) between_pieces();
        bool rn = std::isnan(r[i]), xn = std::isnan(x[i]);
        if (rn || xn) {
            if (rn != xn) ++c.mismatches;
            continue;
        }
        if (std::isinf(r[i]) || std::isinf(x[i])) {
            if (r[i] != x[i]) ++c.mismatches;
            continue;
        }
        double err = std::fabs(static_cast<double>(r[i]) - static_cast<double>(x[i]));
        double mag = std::fabs(static_cast<double>(r[i]));
        if (err > c.max_abs_error) {
            c.max_abs_error = err;
            c.worst_index = i;
        }
        if (mag > 0.0 && err / mag > c.max_rel_error) c.max_rel_error = err / mag;
        if (err > tol.abs + tol.rel * mag) ++c.mismatches;
    }
    c.pass = c.mismatches == 0;
    char buf[160];
    if (c.pass) {
        std::snprintf(buf, sizeof buf, "match (max abs %.1e, max rel %.1e)", c.max_abs_error, c.max_rel_error);
    } else {
        std::snprintf(buf, sizeof buf, "MISMATCH: %lld elements outside tolerance (max abs %.2e at %lld)",
                      static_cast<long long>(c.mismatches), c.max_abs_error, static_cast<long long>(c.worst_index));
    }
    c.verdict = buf;
    return c;
}

}  // namespace gpulab::core
