#include "stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpulab::core {

namespace {
int64_t percentile(const std::vector<int64_t>& sorted, double p) {
    double rank = p * static_cast<double>(sorted.size() - 1);
    auto lo = static_cast<std::size_t>(std::floor(rank));
    auto hi = static_cast<std::size_t>(std::ceil(rank));
    double frac = rank - static_cast<double>(lo);
    return static_cast<int64_t>(std::llround(static_cast<double>(sorted[lo]) * (1.0 - frac) +
                                             static_cast<double>(sorted[hi]) * frac));
}
}  // namespace

Stats summarize(std::vector<int64_t> samples_ns) {
    Stats s;
    if (samples_ns.empty()) return s;
    std::sort(samples_ns.begin(), samples_ns.end());
    s.samples = static_cast<int>(samples_ns.size());
    s.min_ns = samples_ns.front();
    s.max_ns = samples_ns.back();
    s.p25_ns = percentile(samples_ns, 0.25);
    s.median_ns = percentile(samples_ns, 0.5);
    s.p75_ns = percentile(samples_ns, 0.75);
    s.mean_ns = std::accumulate(samples_ns.begin(), samples_ns.end(), 0.0) / static_cast<double>(s.samples);
    return s;
}

double gbps(double bytes, int64_t ns) { return ns > 0 ? bytes / static_cast<double>(ns) : 0.0; }

}  // namespace gpulab::core
