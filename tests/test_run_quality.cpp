// The busy-machine judgement (core/measure/run_quality.h): other programs' share of the CPUs from two
// samples, the threshold, short runs left unjudged, and the sentences.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "measure/run_quality.h"

using namespace gpulab::core;

namespace {

CpuSample at(int64_t wall_ms, int64_t system_busy_ms, int64_t self_ms) {
    return {true, wall_ms * 1'000'000, system_busy_ms * 1'000'000, self_ms * 1'000'000};
}

}  // namespace

TEST_SUITE("measure") {
    TEST_CASE("others' share: the system's busy time minus this process's, over wall time x CPUs") {
        // 1 s on 2 CPUs: the system was busy 1.6 s, of which this process 1.0 s -> others 0.6 / 2 = 30 %.
        const RunQuality q = quality_between(at(0, 0, 0), at(1000, 1600, 1000), 2);
        REQUIRE(q.known);
        CHECK(q.others_share == doctest::Approx(0.30));
        CHECK(q.busy());
        CHECK(q.warning().find("30 %") != std::string::npos);
        CHECK(q.warning().find("2 CPUs") != std::string::npos);
        CHECK(q.summary().find("other programs used 30 % of the 2 CPUs during the 1.0 s run") != std::string::npos);
        // A quiet machine: only this process was busy.
        const RunQuality quiet = quality_between(at(0, 0, 0), at(2000, 3900, 3800), 2);
        CHECK(quiet.known);
        CHECK(quiet.others_share == doctest::Approx(0.025));
        CHECK_FALSE(quiet.busy());
        CHECK(quiet.warning().empty());
    }

    TEST_CASE("short runs, missing samples and tick rounding are never judged busy by accident") {
        CHECK_FALSE(quality_between(at(0, 0, 0), at(100, 200, 0), 2).known);  // 0.1 s: too short
        CpuSample bad = at(1000, 0, 0);
        bad.ok = false;
        CHECK_FALSE(quality_between(at(0, 0, 0), bad, 2).known);
        CHECK_FALSE(quality_between(at(0, 0, 0), at(1000, 0, 0), 0).known);
        // /proc/stat rounds to ticks: this process may read as busier than the system; clamped at 0.
        const RunQuality q = quality_between(at(0, 0, 0), at(1000, 990, 1000), 2);
        CHECK(q.others_share == 0.0);
        CHECK(q.summary().find("headless") != std::string::npos);
        RunQuality drawn = q;
        drawn.frames_drawn = 7;
        CHECK(drawn.summary().find("the window drew 7 frames meanwhile") != std::string::npos);
        CHECK(quality_between(at(0, 0, 0), at(100, 0, 0), 2).summary().find("too short to judge") !=
              std::string::npos);
    }

    TEST_CASE("this machine's samples: readable on Linux, and the clocks move forward") {
        const CpuSample a = sample_cpu();
#if defined(__linux__)
        REQUIRE(a.ok);
        // Burn a little CPU so this process's own time moves.
        volatile double x = 0;
        for (int i = 0; i < 20'000'000; ++i) x = x + 1e-9 * i;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const CpuSample b = sample_cpu();
        CHECK(b.wall_ns > a.wall_ns);
        CHECK(b.self_cpu_ns > a.self_cpu_ns);
        CHECK(b.system_busy_ns >= a.system_busy_ns);
#endif
    }
}
