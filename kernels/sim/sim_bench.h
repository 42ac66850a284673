// How fast the SIMT simulator itself is, for `gpulab bench --suite sim` and docs/benchmarks.md:
// the lessons' default sizes through the real kernels on cuda-sim's simulator. Every number is the
// simulator's own wall time on this CPU, never a GPU time. Plain C++; sim_bench.cpp. Never throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpulab::sim {

struct SimBenchRow {
    std::string name;              // "activation relu 2^20", "conv2d tiled 512x512 3x3"
    bool ok = false;
    std::string error;
    int64_t median_ns = 0;         // the kernel launch on the simulator, median of the repeats (wall)
    int64_t cpu_ns = 0;            // CPU time of the whole process during that launch (all threads)
    int64_t threads = 0;           // CUDA threads (fibers) per launch
    int64_t barrier_crossings = 0;  // __syncthreads() passed, counted per thread, per launch
    double threads_per_s() const { return median_ns > 0 ? threads * 1e9 / static_cast<double>(median_ns) : 0.0; }
    double crossings_per_s() const {
        return median_ns > 0 ? barrier_crossings * 1e9 / static_cast<double>(median_ns) : 0.0;
    }
};

// The activation kernel (ReLU) on 2^20 floats, the tiled convolution on a 512 x 512 image with a
// 3 x 3 filter, and the naive one on the same shape; `repeats` launches each (>= 1). With
// `one_thread` the blocks run on the calling thread only (the per-core speed).
std::vector<SimBenchRow> run_sim_bench(int repeats, bool one_thread);

}  // namespace gpulab::sim
