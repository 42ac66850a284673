// The GPU time model (core/gpu_model/gpu_estimate.h): each term recomputed by hand from the
// published figures and the model's stated assumptions, which term bounds the kernel, and the label.
#include <doctest/doctest.h>

#include "gpu_model/gpu_estimate.h"

using namespace gpulab::core;

TEST_CASE("estimate: a large elementwise kernel is memory-bound at the datasheet bandwidth's share") {
    KernelWork w;
    w.data_bytes = int64_t{2} * 4 * (int64_t{1} << 24);  // ReLU on 2^24 floats: read and write each once
    w.upload_bytes = w.download_bytes = int64_t{4} << 24;
    const ModelAssumptions m;
    const GpuEstimate e = estimate_gpu_time(w, kH200, m);
    CHECK(std::string(e.bound) == "memory");
    // 134,217,728 bytes / (4800 GB/s x 0.8) = 34,953 ns, plus one launch.
    CHECK(e.kernel_ns == doctest::Approx(4000.0 + 134217728.0 / (4800.0 * 0.8)).epsilon(1e-4));
    // Each copy: 8 us + 67,108,864 bytes / (64 GB/s x 0.4).
    CHECK(e.upload_ns == doctest::Approx(8000.0 + 67108864.0 / (64.0 * 0.4)).epsilon(1e-4));
    CHECK(e.total_ns() == e.kernel_ns + e.upload_ns + e.download_ns);
    // The H100's lower bandwidth makes the same kernel slower, its copies the same.
    const GpuEstimate h100 = estimate_gpu_time(w, kH100, m);
    CHECK(h100.kernel_ns > e.kernel_ns);
    CHECK(h100.upload_ns == e.upload_ns);
}

TEST_CASE("estimate: a tiny kernel is all launch, a dense one compute-bound, data kept on the GPU copies nothing") {
    KernelWork tiny;
    tiny.data_bytes = 128;
    CHECK(std::string(estimate_gpu_time(tiny, kH200).bound) == "launch");
    CHECK(estimate_gpu_time(tiny, kH200).upload_ns == 0);
    KernelWork dense;
    dense.flops = int64_t{2} * 4096 * 4096 * 4096;  // a 4096^3 matrix product
    dense.data_bytes = int64_t{3} * 4096 * 4096 * 4;
    const GpuEstimate e = estimate_gpu_time(dense, kH200);
    CHECK(std::string(e.bound) == "compute");
    CHECK(e.kernel_ns == doctest::Approx(4000.0 + 137438953472.0 / (67.0 * 1000.0 * 0.5)).epsilon(1e-4));
    CHECK(estimate_source(kH200) == "estimate (model, NVIDIA H200)");
}

TEST_CASE("estimate: against session 14's recorded H100 products, as docs/benchmarks.md tabulates") {
    // cuBLAS FP32 medians on the H100 (docs/benchmarks.md, session 14), in TFLOP/s.
    const struct {
        int64_t n;
        double tflops;
        double ratio;  // model / measured, as the table says
    } rows[] = {{256, 1.66, 0.25}, {512, 11.4, 0.51}, {1024, 31.4, 1.00}, {4096, 51.0, 1.52}};
    int within_2x = 0;
    for (const auto& r : rows) {
        KernelWork w;
        w.flops = 2 * r.n * r.n * r.n;
        w.data_bytes = 3 * r.n * r.n * 4;
        const double measured_ns = static_cast<double>(w.flops) / (r.tflops * 1000.0);
        const double ratio = static_cast<double>(estimate_gpu_time(w, kH100).kernel_ns) / measured_ns;
        CHECK(ratio == doctest::Approx(r.ratio).epsilon(0.02));
        if (ratio >= 0.5 && ratio <= 2.0) ++within_2x;
    }
    CHECK(within_2x == 3);
}
