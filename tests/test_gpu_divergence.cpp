// The divergence kernel (kernels/probes/divergence.h) against the SIMT emulator (core/workloads/simd_mimd.h).
//
// "gpu" suite: needs a CUDA device; without one each test prints
//   SKIPPED: no CUDA device (<probe reason, verbatim>)   or   SKIPPED: CUDA not compiled in
// and returns, which CTest reports as skipped. The masks the hardware reports inside each branch
// must be the emulator's, as sets (the order in which a warp runs its paths is the hardware's
// choice). The timing checks are deliberately loose orderings, not the +-20 % target of
// TARGETS.md: that is for `gpulab bench --suite simd`, not for a unit test on a shared machine.
// "backends" suite: runs everywhere; bad arguments and a missing device give ok=false with a
// sentence, never a throw.
#include <doctest/doctest.h>

#include <cstdint>
#include <iostream>
#include <set>
#include <string>
#include <utility>

#include "probes/divergence.h"
#include "gpu_backends.h"
#include "gpu_test_support.h"
#include "ops/simt.h"
#include "workloads/simd_mimd.h"

using namespace gpulab;
using testing::gpu_ready;
using simt::Pattern;

namespace {

using PathSet = std::set<std::pair<int, uint32_t>>;

PathSet emulated(Pattern p, int warp) {
    PathSet s;
    for (const core::WarpStep& step : core::emulate_warp(p, warp).steps) s.insert({step.path, step.active});
    return s;
}

}  // namespace

TEST_SUITE("gpu") {
    TEST_CASE("recorded warp masks equal the emulator for every pattern") {
        if (!gpu_ready()) return;
        constexpr int kTraceWarps = 8;
        for (Pattern p : core::kAllPatterns) {
            CAPTURE(core::pattern_name(p));
            const gpu::DivergenceRun r = gpu::run_divergence(p, int64_t{1} << 14, 64, 3, kTraceWarps);
            REQUIRE_MESSAGE(r.ok, r.error);
            CHECK(r.pattern == p);
            CHECK(r.kernel.samples == 3);
            CHECK(r.kernel.median_ns > 0);
            REQUIRE(r.warps.size() == kTraceWarps);
            for (const gpu::RecordedWarp& w : r.warps) {
                CAPTURE(w.warp);
                PathSet seen;
                for (const gpu::RecordedPath& path : w.paths) {
                    CHECK(path.start_clock >= 0);
                    CHECK(path.start_clock <= path.end_clock);
                    seen.insert({path.path, path.active_mask});
                }
                CHECK(w.paths.size() == seen.size());  // each path entered once per warp
                CHECK(seen == emulated(p, w.warp));
            }
        }
    }

    TEST_CASE("measured cost grows with the paths per warp") {
        if (!gpu_ready()) return;
        constexpr int64_t kElements = int64_t{1} << 18;
        constexpr int kIterations = 256;
        constexpr int kSamples = 5;
        const gpu::DivergenceRun uniform = gpu::run_divergence(Pattern::Uniform, kElements, kIterations, kSamples, 0);
        const gpu::DivergenceRun four = gpu::run_divergence(Pattern::FourWay, kElements, kIterations, kSamples, 0);
        const gpu::DivergenceRun all32 =
            gpu::run_divergence(Pattern::ThirtyTwoWay, kElements, kIterations, kSamples, 0);
        const gpu::DivergenceRun per_warp = gpu::run_divergence(Pattern::PerWarp, kElements, kIterations, kSamples, 0);
        REQUIRE_MESSAGE(uniform.ok, uniform.error);
        REQUIRE_MESSAGE(four.ok, four.error);
        REQUIRE_MESSAGE(all32.ok, all32.error);
        REQUIRE_MESSAGE(per_warp.ok, per_warp.error);
        CHECK(uniform.warps.empty());
        const double u = static_cast<double>(uniform.kernel.median_ns);
        const double f4 = static_cast<double>(four.kernel.median_ns) / u;
        const double f32 = static_cast<double>(all32.kernel.median_ns) / u;
        const double fw = static_cast<double>(per_warp.kernel.median_ns) / u;
        MESSAGE("measured factors: 4-way " << f4 << ", 32-way " << f32 << ", per-warp " << fw);
        CHECK(f4 > 1.5);
        CHECK(f32 > 2.0 * f4);
        CHECK(fw < 2.0);  // warps that differ from each other but not inside: no lockstep cost
    }
}

TEST_SUITE("backends") {
    TEST_CASE("divergence answers bad arguments with a sentence and no throw") {
        const gpu::DivergenceRun zero = gpu::run_divergence(Pattern::FourWay, 0, 64, 3, 0);
        CHECK_FALSE(zero.ok);
        CHECK(!zero.error.empty());
        const gpu::DivergenceRun no_samples = gpu::run_divergence(Pattern::FourWay, 1024, 64, 0, 0);
        CHECK_FALSE(no_samples.ok);
        CHECK(!no_samples.error.empty());
        const gpu::DivergenceRun too_many_traces = gpu::run_divergence(Pattern::FourWay, 1024, 64, 3, 1 << 20);
        CHECK_FALSE(too_many_traces.ok);
        CHECK(!too_many_traces.error.empty());
        const gpu::DivergenceRun no_work = gpu::run_divergence(Pattern::Uniform, 1024, 0, 3, 0);
        CHECK_FALSE(no_work.ok);
        CHECK(!no_work.error.empty());
    }

    TEST_CASE("divergence without a usable device says why") {
        const gpu::GpuProbe& p = gpu::probe();
        if (p.compiled_in && p.device_ok) return;  // the gpu suite covers this machine
        const gpu::DivergenceRun r = gpu::run_divergence(Pattern::Random, 4096, 16, 2, 2);
        CHECK_FALSE(r.ok);
        CHECK(!r.error.empty());
        CHECK(r.warps.empty());
        if (!p.compiled_in) CHECK(r.error.find("CUDA not compiled in") != std::string::npos);
        else CHECK(r.error == p.reason);
    }
}
