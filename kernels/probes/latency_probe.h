// GPU fixed costs for the latency-vs-throughput lesson, behind plain C++ types: launch overhead,
// CUDA Graphs, host<->device copy bandwidth with pinned and pageable memory, and the one-time
// cost of creating the CUDA context. Implemented in latency_probe.cu (CUDA build) and in
// gpu_absent.cpp (every call reports "CUDA not compiled in"). Never throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "measure/stats.h"

namespace gpulab::gpu {

struct LaunchCosts {
    bool ok = false;
    std::string error;
    core::Stats enqueue;          // host time of one empty-kernel launch call (no sync)
    core::Stats launch_and_sync;  // launch of an empty kernel + cudaStreamSynchronize, host clock
    int graph_kernels = 0;        // K: kernels per batch below
    core::Stats separate_per_kernel;  // K tiny kernels launched one by one, then sync; time / K
    core::Stats graph_per_kernel;     // the same K kernels captured once in a CUDA Graph; time / K
};

// `graph_kernels` tiny kernels per batch; `samples` batches (after warm-up).
LaunchCosts measure_launch_costs(int graph_kernels = 32, int samples = 50);

struct CopyBandwidth {
    bool ok = false;
    std::string error;
    std::size_t bytes = 0;
    double h2d_pinned_gbps = 0, d2h_pinned_gbps = 0;      // cudaMallocHost buffers
    double h2d_pageable_gbps = 0, d2h_pageable_gbps = 0;  // ordinary malloc'd buffers
};

// Median of `samples` copies of `bytes` each way, timed with CUDA events.
CopyBandwidth measure_copy_bandwidth(std::size_t bytes, int samples = 10);

struct ColdStart {
    bool ok = false;
    std::string error;
    int64_t context_ns = 0;  // first CUDA runtime call of the process (context creation), host clock
    int64_t driver_init_ns = 0;  // the part of context_ns before the context: loading and starting the driver
};

// Measured once, the first time the process touches CUDA (gpu::probe() does that); later calls
// return the recorded value.
ColdStart cold_start();

}  // namespace gpulab::gpu
