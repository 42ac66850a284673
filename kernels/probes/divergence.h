// The divergence kernel of the SIMD-vs-MIMD lesson behind plain C++ types. Each thread reads its
// branch key from memory (core/ops/simt.h pattern_key), runs that path's body (equal-cost,
// structurally different work that the compiler cannot merge into a select), and, for the first
// warps, records per path the clock64() stamps and __activemask(). Implemented in divergence.cu;
// gpu_absent.cpp answers "CUDA not compiled in". Never throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/simt.h"
#include "measure/stats.h"

namespace gpulab::gpu {

struct RecordedPath {
    int path = 0;
    uint32_t active_mask = 0;  // __activemask() inside the branch
    int64_t start_clock = 0;   // clock64() on entry, relative to the warp's first stamp
    int64_t end_clock = 0;     // clock64() on exit
};
struct RecordedWarp {
    int warp = 0;
    std::vector<RecordedPath> paths;  // in the order the hardware ran them
};

struct DivergenceRun {
    bool ok = false;
    std::string error;
    simt::Pattern pattern = simt::Pattern::Uniform;
    int64_t elements = 0;
    int iterations = 0;       // work per path body
    core::Stats kernel;       // CUDA events around the kernel only
    std::vector<RecordedWarp> warps;  // the first `trace_warps` warps of one run
};

// Runs the kernel `samples` times (after warm-up) and records the first `trace_warps` warps.
DivergenceRun run_divergence(simt::Pattern pattern, int64_t elements, int iterations, int samples, int trace_warps);

}  // namespace gpulab::gpu
