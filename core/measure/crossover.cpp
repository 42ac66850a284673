#include "crossover.h"

#include <algorithm>
#include <cmath>

namespace gpulab::core {

namespace {
int sign_of(double a, double b) { return b < a ? 1 : (b > a ? -1 : 0); }  // +1: B faster
}  // namespace

std::vector<Crossing> find_crossings(const std::vector<double>& sizes, const std::vector<double>& time_a,
                                     const std::vector<double>& time_b, int persist) {
    std::vector<Crossing> out;
    const std::size_t n = std::min({sizes.size(), time_a.size(), time_b.size()});
    if (n < 2) return out;
    // The confirmed order so far; ties keep the previous order.
    int current = 0;
    std::size_t i0 = 0;
    while (i0 < n && (current = sign_of(time_a[i0], time_b[i0])) == 0) ++i0;
    for (std::size_t i = i0 + 1; i < n; ++i) {
        int s = sign_of(time_a[i], time_b[i]);
        if (s == 0 || s == current) continue;
        // Does the new order hold for `persist` points (or to the end)?
        bool holds = true;
        for (std::size_t k = i; k < n && k < i + static_cast<std::size_t>(persist); ++k) {
            if (sign_of(time_a[k], time_b[k]) == current) holds = false;
        }
        if (!holds) continue;
        // Interpolate log(time_b / time_a) linearly in log(size) between points i-1 and i.
        const double d0 = std::log(time_b[i - 1] / time_a[i - 1]);
        const double d1 = std::log(time_b[i] / time_a[i]);
        const double l0 = std::log(sizes[i - 1]), l1 = std::log(sizes[i]);
        const double t = (d0 == d1) ? 0.5 : d0 / (d0 - d1);
        out.push_back({std::exp(l0 + std::clamp(t, 0.0, 1.0) * (l1 - l0)), s > 0, i - 1});
        current = s;
    }
    return out;
}

std::optional<double> wins_above(const std::vector<double>& sizes, const std::vector<double>& time_a,
                                 const std::vector<double>& time_b, int persist) {
    const std::size_t n = std::min({sizes.size(), time_a.size(), time_b.size()});
    if (n == 0 || !(time_b[n - 1] < time_a[n - 1])) return std::nullopt;
    std::vector<Crossing> c = find_crossings(sizes, time_a, time_b, persist);
    for (auto it = c.rbegin(); it != c.rend(); ++it) {
        if (it->b_becomes_faster) return it->size;
    }
    return sizes.front();
}

}  // namespace gpulab::core
