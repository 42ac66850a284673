// Summaries of repeated timings: median and spread, as nvbench and every honest benchmark
// reports them. Verified by tests/test_stats.cpp.
#pragma once

#include <cstdint>
#include <vector>

namespace gpulab::core {

struct Stats {
    int samples = 0;
    int64_t min_ns = 0;
    int64_t p25_ns = 0;
    int64_t median_ns = 0;
    int64_t p75_ns = 0;
    int64_t max_ns = 0;
    double mean_ns = 0.0;
};

// Empty input gives samples == 0 and zeros. Percentiles interpolate linearly between ranks.
Stats summarize(std::vector<int64_t> samples_ns);

// Bytes over nanoseconds in GB/s (1e9 bytes/s); 0 when the time is not positive.
double gbps(double bytes, int64_t ns);

}  // namespace gpulab::core
