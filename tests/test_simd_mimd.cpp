// The SIMD-vs-MIMD lesson's CPU measurements (core/workloads/simd_mimd.h): one core scalar vs
// vectorised on the same input, and several threads running different work at once. Only the
// shape of the results is tested (equal outputs, positive times, spans from several threads);
// how much faster is for `gpulab bench --suite simd`, never for a timed unit test.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "ops/op_desc.h"
#include "workloads/simd_mimd.h"

using namespace gpulab;

namespace {

core::MeasureConfig quick_config() {
    core::MeasureConfig c;
    c.warmup = 1;
    c.min_samples = 3;
    c.max_samples = 5;
    c.time_budget_ns = 50'000'000;
    c.measure_limits = false;
    return c;
}

}  // namespace

TEST_SUITE("simd-mimd") {
    TEST_CASE("scalar and vectorised activations agree on one core") {
        for (core::Activation a : {core::Activation::Relu, core::Activation::Sigmoid, core::Activation::Gelu}) {
            CAPTURE(core::activation_name(a));
            const core::SimdComparison r = core::measure_simd_vs_scalar(a, int64_t{1} << 16, quick_config());
            REQUIRE_MESSAGE(r.ok, r.error);
            CHECK(r.results_equal);
            CHECK(r.speedup > 0.0);
            CHECK(!r.isa.empty());
            CHECK(r.lanes >= 4);
            CHECK(r.elements == int64_t{1} << 16);
            CHECK(r.scalar.samples >= 3);
            CHECK(r.simd.samples == r.scalar.samples);
            CHECK(r.scalar.median_ns > 0);
            CHECK(r.simd.median_ns > 0);
        }
    }

    TEST_CASE("an odd element count leaves a vector tail and still agrees") {
        const core::SimdComparison r = core::measure_simd_vs_scalar(core::Activation::Tanh, 1000003, quick_config());
        REQUIRE_MESSAGE(r.ok, r.error);
        CHECK(r.results_equal);
    }

    TEST_CASE("bad element counts are refused with a sentence") {
        const core::SimdComparison zero = core::measure_simd_vs_scalar(core::Activation::Relu, 0, quick_config());
        CHECK_FALSE(zero.ok);
        CHECK(!zero.error.empty());
        const core::SimdComparison huge =
            core::measure_simd_vs_scalar(core::Activation::Relu, int64_t{1} << 50, quick_config());
        CHECK_FALSE(huge.ok);
        CHECK(huge.error.find("refused") != std::string::npos);
    }

    TEST_CASE("the MIMD timeline has different tasks from several threads") {
        const core::MimdTimeline t = core::run_mimd_demo(4, 1);
        REQUIRE_MESSAGE(t.ok, t.error);
        CHECK(t.threads == 4);
        CHECK(t.wall_ns > 0);
        CHECK(t.sequential_ns > 0);
        CHECK(t.t0_ns > 0);
        std::set<int> threads;
        std::set<std::string> tasks;
        for (const core::TimelineSpan& s : t.spans) {
            CHECK(s.start_ns >= 0);
            CHECK(s.start_ns < s.end_ns);
            CHECK(s.end_ns <= t.wall_ns);
            CHECK(s.thread >= 0);
            CHECK(s.thread < 4);
            CHECK(!s.task.empty());
            CHECK(s.cpu >= -1);
            threads.insert(s.thread);
            tasks.insert(s.task);
        }
        CHECK(threads.size() == 4);
        CHECK(tasks.size() == 4);  // four kinds of work: four instruction streams
        // Every thread's own spans follow each other without overlap.
        for (int th = 0; th < 4; ++th) {
            int64_t last_end = -1;
            for (const core::TimelineSpan& s : t.spans) {
                if (s.thread != th) continue;
                CHECK(s.start_ns >= last_end);
                last_end = s.end_ns;
            }
        }
    }

    TEST_CASE("two threads give two distinct task names") {
        const core::MimdTimeline t = core::run_mimd_demo(2, 1);
        REQUIRE_MESSAGE(t.ok, t.error);
        std::set<int> threads;
        std::set<std::string> tasks;
        for (const core::TimelineSpan& s : t.spans) threads.insert(s.thread), tasks.insert(s.task);
        CHECK(threads.size() >= 2);
        CHECK(tasks.size() >= 2);
    }

    TEST_CASE("bad MIMD arguments give ok false and a reason") {
        for (int threads : {0, -3, core::kMaxMimdThreads + 1}) {
            const core::MimdTimeline t = core::run_mimd_demo(threads, 1);
            CHECK_FALSE(t.ok);
            CHECK(t.error.find("threads") != std::string::npos);
            CHECK(t.spans.empty());
        }
        for (int64_t scale : {int64_t{0}, core::kMaxMimdWorkScale + 1}) {
            const core::MimdTimeline t = core::run_mimd_demo(2, scale);
            CHECK_FALSE(t.ok);
            CHECK(t.error.find("work scale") != std::string::npos);
        }
    }
}

TEST_SUITE("simd-mimd") {
    TEST_CASE("the divergence run is sized from the device - so quick runs keep the factors") {
        using namespace gpulab::core;
        // No device: only the floor counts (rounded up to a power of two).
        CHECK(divergence_elements(0, 0, int64_t{1} << 16) == int64_t{1} << 16);
        CHECK(divergence_elements(0, 0, 1000) == 1024);
        // An H100 SXM5: 4 waves of 132 x 2,048 threads = 1,081,344 -> 2^21, above the quick floor of 2^16.
        CHECK(divergence_elements(132, 2048, int64_t{1} << 16) == int64_t{1} << 21);
        // A uniform run of 5 us grows the work per path 32-fold to reach 100 us (160 us).
        CHECK(divergence_iterations(64, 5'000) == 64 * 32);
        CHECK(divergence_iterations(64, 100'000) == 64);  // already long enough
        CHECK(divergence_iterations(64, 0) == 64);        // nothing measured: unchanged
        CHECK(divergence_iterations(64, 1) == kMaxDivergenceIterations);  // capped
        CHECK(divergence_iterations(32, 40'000) * 40'000 / 32 >= kDivergenceTargetNs);
    }
}
