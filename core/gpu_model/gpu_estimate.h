// A GPU time where nothing measured one (issue 39, part 3): no GPU here and the shipped recording has
// no run of these settings. A small roofline-and-latency model over what a kernel must do (the bytes
// of its data, counted by the simulator or declared by the op; its floating-point operations; its
// launches; the bytes copied to and from the host) and a named GPU's published figures. Every
// number it gives is labelled "estimate (model, <GPU>)" on screen and in exports, and is never
// used in a speed-up against a measurement without saying so.
//
// The model: kernel time = launches x launch cost + max(data bytes / (memory bandwidth x achieved
// share), flops / (FP32 peak x achieved share)); a copy = per-copy latency + bytes / (host link x
// achieved share). Published figures (NVIDIA's datasheets, PCI-SIG's link rate) are facts; the
// launch cost, copy latency and achieved shares are the model's assumptions, chosen once and
// checked against recorded runs (docs/benchmarks.md, "GPU estimate against recordings").
// Verified by tests/test_gpu_estimate.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace gpulab::core {

// What a GPU's datasheet says, the figures the model needs.
struct PublishedGpu {
    const char* name;
    int sm_count;
    double boost_clock_ghz;
    double memory_gbps;      // GB/s, 1e9 bytes per second
    double fp32_tflops;      // dense FP32, no tensor cores
    double host_link_gbps;   // one direction of its host link
};

// NVIDIA H200 SXM (datasheet): 132 SMs, 1.98 GHz boost, 4.8 TB/s HBM3e, 67 TFLOP/s FP32; its host
// link is PCIe 5.0 x16, 64 GB/s each way (PCI-SIG's rate: 32 GT/s x 16 lanes, 128b/130b coding).
inline constexpr PublishedGpu kH200{"NVIDIA H200", 132, 1.98, 4800.0, 67.0, 64.0};
// NVIDIA H100 SXM5 (datasheet): the H200's SMs and clocks with 3.35 TB/s of HBM3.
inline constexpr PublishedGpu kH100{"NVIDIA H100 SXM5", 132, 1.98, 3350.0, 67.0, 64.0};

// The model's assumptions (not published figures): what one launch costs end to end, what one host
// copy costs before its first byte, and the share of each peak a simple kernel reaches.
struct ModelAssumptions {
    double launch_ns = 4000.0;        // a launch and its completion seen from the host
    double copy_latency_ns = 8000.0;  // a cudaMemcpy of pageable memory, before bandwidth counts
    double memory_share = 0.80;       // of the datasheet bandwidth, for streaming kernels
    double compute_share = 0.50;      // of FP32 peak, for a kernel without tensor cores
    double link_share = 0.40;         // of the link rate, for pageable host memory
};

// What one run of a kernel does, in counts.
struct KernelWork {
    int64_t launches = 1;
    int64_t data_bytes = 0;      // the data's own bytes read and written once (the simulator's unique bytes)
    int64_t flops = 0;           // floating-point operations (0: negligible)
    int64_t upload_bytes = 0;    // host to device, per run
    int64_t download_bytes = 0;  // device to host, per run
};

struct GpuEstimate {
    int64_t kernel_ns = 0, upload_ns = 0, download_ns = 0;
    const char* bound = "";  // "launch", "memory" or "compute": what set the kernel's time
    int64_t total_ns() const { return kernel_ns + upload_ns + download_ns; }
};

GpuEstimate estimate_gpu_time(const KernelWork& work, const PublishedGpu& gpu, const ModelAssumptions& model = {});

// "estimate (model, NVIDIA H200)": the source column and the label of every estimated number.
std::string estimate_source(const PublishedGpu& gpu);

}  // namespace gpulab::core
