// The latency sweep: the planner respects memory and size limits, phase accounting sums to the
// total, a CPU-only sweep yields complete CPU data, and the CSV has one row per size and backend.
#include <doctest/doctest.h>

#include <sstream>

#include "gpu_backends.h"
#include "workloads/latency_sweep.h"

using namespace gpulab::core;

namespace {
std::vector<Backend*> raw(const BackendList& list) {
    std::vector<Backend*> v;
    for (const auto& b : list) v.push_back(b.get());
    return v;
}
SweepConfig tiny() {
    SweepConfig c;
    c.min_exp = 4;
    c.max_exp = 12;
    c.time_per_point_ns = 0;
    c.min_samples_small = 3;
    return c;
}
}  // namespace

TEST_SUITE("latency-sweep") {
    TEST_CASE("the planner stops where the memory budget ends and says why") {
        SweepPlan p = plan_sweep(4, 28, 12, 12 * (std::size_t{1} << 20));
        REQUIRE(p.sizes.size() == 17);  // 2^4 .. 2^20
        CHECK(p.sizes.front() == 16);
        CHECK(p.sizes.back() == (1 << 20));
        CHECK(p.capped.find("2^21") != std::string::npos);
        CHECK(p.capped.find("memory budget") != std::string::npos);
    }
    TEST_CASE("the planner keeps everything within budget and clamps exponents") {
        SweepPlan p = plan_sweep(-3, 3, 4, 1 << 20);
        CHECK(p.sizes == std::vector<int64_t>{1, 2, 4, 8});
        CHECK(p.capped.empty());
        CHECK(plan_sweep(10, 4, 4, 1 << 30).sizes.empty());
    }
    TEST_CASE("a CPU-only sweep gives complete CPU data and phases that add up") {
        BackendList cpu = make_cpu_backends();
        SweepResult r = run_latency_sweep(tiny(), raw(cpu));
        REQUIRE(r.ok);
        REQUIRE(r.plan.sizes.size() == 9);
        for (std::size_t b = 0; b < r.backends.size(); ++b) {
            for (std::size_t i = 0; i < r.plan.sizes.size(); ++i) {
                const SweepCell& c = r.cells[b][i];
                CAPTURE(r.backends[b]);
                CAPTURE(r.plan.sizes[i]);
                CHECK(c.ran);
                CHECK(c.matches_reference);
                CHECK(c.total.samples >= 3);
                // CPU backends report all their time as compute: phases sum to the total
                CHECK(c.upload.median_ns + c.compute.median_ns + c.download.median_ns == c.total.median_ns);
            }
        }
        for (auto t : r.best_cpu_ns()) CHECK(t.has_value());
    }
    TEST_CASE("without a usable GPU there is no crossover and the reason is kept") {
        BackendList all = make_cpu_backends();
        for (auto& b : gpulab::gpu::make_backends()) all.push_back(std::move(b));
        SweepConfig c = tiny();
        c.max_exp = 6;
        SweepResult r = run_latency_sweep(c, raw(all));
        REQUIRE(r.ok);
        if (!gpulab::gpu::probe().device_ok) {
            SweepCrossover x = sweep_crossover(r);
            CHECK_FALSE(x.with_transfers);
            CHECK(x.gpu_backend.empty());
            CHECK_FALSE(r.cells.back()[0].why_not.empty());
        }
    }
    TEST_CASE("the CSV has a header and one row per size and backend") {
        BackendList cpu = make_cpu_backends();
        SweepConfig c = tiny();
        c.max_exp = 6;
        SweepResult r = run_latency_sweep(c, raw(cpu));
        std::istringstream csv(sweep_csv(r, {"gpulab 0.1.0  |  Latency  |  2026-01-01 00:00:00 UTC", "CPU: test (2 threads)"}));
        std::string line;
        int rows = 0;
        bool header = false, captioned = false;
        while (std::getline(csv, line)) {
            if (line.rfind("elements,backend,", 0) == 0) header = true;
            else if (line == "# CPU: test (2 threads)") captioned = true;
            else if (!line.empty() && line[0] != '#') ++rows;
        }
        CHECK(header);
        CHECK(captioned);
        CHECK(rows == static_cast<int>(3 * cpu.size()));
    }
    TEST_CASE("cancel stops the sweep") {
        BackendList cpu = make_cpu_backends();
        int calls = 0;
        SweepResult r = run_latency_sweep(tiny(), raw(cpu), [&](float, std::string_view) { return ++calls < 5; });
        CHECK(r.error == "cancelled");
    }
}
