// The GPU time model: see gpu_estimate.h.
#include "gpu_estimate.h"

#include <algorithm>
#include <cmath>

namespace gpulab::core {

namespace {

int64_t to_ns(double ns) { return static_cast<int64_t>(std::llround(std::max(ns, 0.0))); }

// One host copy: nothing copied costs nothing (a kernel whose data stays on the GPU).
int64_t copy_ns(int64_t bytes, const PublishedGpu& gpu, const ModelAssumptions& m) {
    if (bytes <= 0) return 0;
    return to_ns(m.copy_latency_ns + static_cast<double>(bytes) / (gpu.host_link_gbps * m.link_share));
}

}  // namespace

GpuEstimate estimate_gpu_time(const KernelWork& work, const PublishedGpu& gpu, const ModelAssumptions& m) {
    GpuEstimate e;
    // GB/s is bytes per ns; TFLOP/s is 1000 flops per ns.
    const double memory_ns = static_cast<double>(work.data_bytes) / (gpu.memory_gbps * m.memory_share);
    const double compute_ns = static_cast<double>(work.flops) / (gpu.fp32_tflops * 1000.0 * m.compute_share);
    const double launch_ns = static_cast<double>(std::max<int64_t>(work.launches, 0)) * m.launch_ns;
    // Launch cost and the kernel's own work add (a small kernel is all launch); memory and compute
    // overlap (warps waiting for memory leave the lanes to others), so the larger of the two counts.
    e.kernel_ns = to_ns(launch_ns + std::max(memory_ns, compute_ns));
    e.bound = launch_ns >= std::max(memory_ns, compute_ns) ? "launch" : memory_ns >= compute_ns ? "memory" : "compute";
    e.upload_ns = copy_ns(work.upload_bytes, gpu, m);
    e.download_ns = copy_ns(work.download_bytes, gpu, m);
    return e;
}

std::string estimate_source(const PublishedGpu& gpu) { return std::string("estimate (model, ") + gpu.name + ")"; }

}  // namespace gpulab::core
