// The GPU's fixed costs (kernels/probes/latency_probe.h) and the launch time the staged backends report.
//
// "gpu" suite: needs a CUDA device; without one each test prints
//   SKIPPED: no CUDA device (<probe reason, verbatim>)   or   SKIPPED: CUDA not compiled in
// and returns, which CTest reports as skipped. The bounds are deliberately loose: these are
// timings on a shared machine, and the tests are there to catch a measurement that is broken (zero,
// negative, the graph replaying nothing, pinned slower than pageable), not to grade the hardware.
// TARGETS.md holds the numbers we expect to see on an H100.
// "backends" suite: runs everywhere; without a device every probe answers ok=false with a reason
// and nothing throws.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <string_view>

#include "backends/backend.h"
#include "gpu_backends.h"
#include "gpu_test_support.h"
#include "probes/latency_probe.h"
#include "ops/op_desc.h"
#include "ops/tensor.h"

using namespace gpulab;
using testing::gpu_ready;

namespace {

void check_positive(const core::Stats& s, int min_samples) {
    CHECK(s.samples >= min_samples);
    CHECK(s.min_ns >= 0);
    CHECK(s.median_ns > 0);
    CHECK(s.min_ns <= s.median_ns);
    CHECK(s.median_ns <= s.max_ns);
}

}  // namespace

TEST_SUITE("gpu") {
    TEST_CASE("launch costs have positive medians and a graph is not slower per kernel") {
        if (!gpu_ready()) return;
        constexpr int kKernels = 32;
        constexpr int kSamples = 20;
        const gpu::LaunchCosts c = gpu::measure_launch_costs(kKernels, kSamples);
        REQUIRE_MESSAGE(c.ok, c.error);
        CHECK(c.error.empty());
        CHECK(c.graph_kernels == kKernels);
        check_positive(c.enqueue, kSamples);
        check_positive(c.launch_and_sync, kSamples);
        check_positive(c.separate_per_kernel, kSamples);
        check_positive(c.graph_per_kernel, kSamples);
        // Waiting for the kernel includes issuing it.
        CHECK(c.launch_and_sync.median_ns >= c.enqueue.median_ns);
        // A graph replays the same K kernels with one launch call, so per kernel it should win by
        // microseconds (TARGETS.md). 1.5x only guards against a graph that costs clearly more,
        // which would mean the measurement is wrong, without failing on a noisy shared machine.
        CHECK(static_cast<double>(c.graph_per_kernel.median_ns) <=
              1.5 * static_cast<double>(c.separate_per_kernel.median_ns));
    }

    TEST_CASE("launch costs refuse bad arguments with a sentence") {
        if (!gpu_ready()) return;
        const int bad[][2] = {{0, 10}, {32, 0}, {-1, 10}, {1 << 20, 10}, {32, 1 << 30}};
        for (const auto& arg : bad) {
            CAPTURE(arg[0]);
            CAPTURE(arg[1]);
            const gpu::LaunchCosts c = gpu::measure_launch_costs(arg[0], arg[1]);
            CHECK_FALSE(c.ok);
            CHECK(c.error.find("launch costs") != std::string::npos);
        }
    }

    TEST_CASE("copy bandwidth of 64 MiB is positive and pinned is not slower than pageable") {
        if (!gpu_ready()) return;
        constexpr std::size_t kBytes = std::size_t{64} << 20;
        const gpu::CopyBandwidth b = gpu::measure_copy_bandwidth(kBytes, 5);
        REQUIRE_MESSAGE(b.ok, b.error);
        CHECK(b.bytes == kBytes);
        CHECK(b.h2d_pinned_gbps > 0.0);
        CHECK(b.d2h_pinned_gbps > 0.0);
        CHECK(b.h2d_pageable_gbps > 0.0);
        CHECK(b.d2h_pageable_gbps > 0.0);
        // Pinned pages go straight to the copy engine; pageable ones first pass through the
        // driver's pinned bounce buffer, an extra CPU copy. On hosts with fast memory that extra
        // copy overlaps well and the gap can shrink to little, so we ask only that pinned is not
        // clearly slower (0.8 absorbs run-to-run noise) rather than the usual 2-6x.
        CHECK(b.h2d_pinned_gbps >= 0.8 * b.h2d_pageable_gbps);
    }

    TEST_CASE("copy bandwidth refuses zero bytes and more than the GPU holds") {
        if (!gpu_ready()) return;
        const gpu::CopyBandwidth zero = gpu::measure_copy_bandwidth(0, 5);
        CHECK_FALSE(zero.ok);
        CHECK_FALSE(zero.error.empty());
        const gpu::CopyBandwidth huge = gpu::measure_copy_bandwidth(gpu::probe().total_memory * 4, 5);
        CHECK_FALSE(huge.ok);
        CHECK(huge.error.find("GPU memory") != std::string::npos);
        const gpu::CopyBandwidth no_samples = gpu::measure_copy_bandwidth(std::size_t{1} << 20, 0);
        CHECK_FALSE(no_samples.ok);
        CHECK_FALSE(no_samples.error.empty());
    }

    TEST_CASE("cold start is recorded once and is positive") {
        if (!gpu_ready()) return;
        const gpu::ColdStart c = gpu::cold_start();
        REQUIRE_MESSAGE(c.ok, c.error);
        CHECK(c.context_ns > 0);
        CHECK(c.driver_init_ns >= 0);
        CHECK(c.driver_init_ns <= c.context_ns);
        // Recorded by the first probe(): asking again measures nothing new.
        CHECK(gpu::cold_start().context_ns == c.context_ns);
        CHECK(gpu::probe().context_ns == c.context_ns);
    }

    TEST_CASE("GPU backends report a positive launch time beside their phases") {
        if (!gpu_ready()) return;
        core::BackendList list = gpu::make_backends();
        core::OpDesc op;
        op.activation = core::Activation::Relu;
        core::Tensor in = core::Tensor::zeros({int64_t{1} << 20});
        for (std::size_t i = 0; i < in.data.size(); ++i) in.data[i] = static_cast<float>(i % 7) - 3.0f;
        bool kernel_ran = false;
        for (auto& b : list) {
            if (!b->availability().ok || !b->supports(op)) continue;
            CAPTURE(std::string(b->name()));
            core::Tensor out = core::Tensor::zeros(in.shape);
            const core::RunResult r = b->run(op, in, out);
            REQUIRE_MESSAGE(r.ok, r.error);
            CHECK(r.t.launch_ns > 0);
            // Host-side enqueue time is reported beside the GPU phases, never added to them.
            CHECK(r.t.total_ns() == r.t.upload_ns + r.t.compute_ns + r.t.download_ns);
            if (b->name() == "cuda-kernel") kernel_ran = true;
        }
        CHECK(kernel_ran);
    }
}

TEST_SUITE("backends") {
    TEST_CASE("latency probes without a device answer with a reason and do not throw") {
        const gpu::GpuProbe& p = gpu::probe();
        if (p.device_ok) return;  // a GPU machine: the gpu suite covers the working path
        gpu::LaunchCosts launch;
        gpu::CopyBandwidth copy;
        gpu::ColdStart cold;
        CHECK_NOTHROW(launch = gpu::measure_launch_costs(32, 10));
        CHECK_NOTHROW(copy = gpu::measure_copy_bandwidth(std::size_t{1} << 20, 3));
        CHECK_NOTHROW(cold = gpu::cold_start());
        CHECK_FALSE(launch.ok);
        CHECK_FALSE(copy.ok);
        CHECK_FALSE(cold.ok);
        CHECK_FALSE(launch.error.empty());
        CHECK_FALSE(copy.error.empty());
        CHECK_FALSE(cold.error.empty());
        CHECK(cold.context_ns == 0);
        CHECK(launch.enqueue.samples == 0);
        if (p.compiled_in) {
            // The probe's reason verbatim, e.g. cudaErrorInsufficientDriver on this build box.
            CHECK(launch.error == p.reason);
            CHECK(copy.error == p.reason);
            CHECK(cold.error == p.reason);
        } else {
            const std::string_view prefix = "CUDA not compiled in";
            CHECK(launch.error.rfind(prefix, 0) == 0);
            CHECK(copy.error.rfind(prefix, 0) == 0);
            CHECK(cold.error.rfind(prefix, 0) == 0);
        }
        // Bad arguments are no worse than no device.
        CHECK_NOTHROW(launch = gpu::measure_launch_costs(-5, -5));
        CHECK_FALSE(launch.ok);
        CHECK_NOTHROW(copy = gpu::measure_copy_bandwidth(0, 0));
        CHECK_FALSE(copy.ok);
    }
}
