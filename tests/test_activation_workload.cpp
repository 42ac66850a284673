// The activation workload: every CPU backend runs and agrees with the reference, statistics are
// filled, sizes that cannot fit are refused before allocation, and cancel is honoured.
#include <doctest/doctest.h>

#include <vector>

#include "gpu_backends.h"
#include "workloads/activation_workload.h"

using namespace gpulab::core;

namespace {
MeasureConfig quick() {
    MeasureConfig c;
    c.warmup = 1;
    c.min_samples = 3;
    c.max_samples = 3;
    c.time_budget_ns = 0;
    return c;
}
std::vector<Backend*> raw(const BackendList& list) {
    std::vector<Backend*> v;
    for (const auto& b : list) v.push_back(b.get());
    return v;
}
}  // namespace

TEST_SUITE("workload") {
    TEST_CASE("feature map shapes are exact and close to square") {
        CHECK(feature_map_shape(1 << 20) == std::vector<int64_t>{1024, 1024});
        CHECK(feature_map_shape(1 << 21) == std::vector<int64_t>{1024, 2048});
        CHECK(feature_map_shape(12) == std::vector<int64_t>{3, 4});
        CHECK(feature_map_shape(13) == std::vector<int64_t>{1, 13});
    }
    TEST_CASE("the generated input has both signs and is deterministic") {
        Tensor a = make_feature_map(4096, 1), b = make_feature_map(4096, 1);
        CHECK(a.data == b.data);
        float lo = 0, hi = 0;
        for (float v : a.data) lo = std::min(lo, v), hi = std::max(hi, v);
        CHECK(lo < -0.5f);
        CHECK(hi > 0.5f);
    }
    TEST_CASE("every CPU backend runs every activation and matches the reference") {
        BackendList cpu = make_cpu_backends();
        for (Activation a : kAllActivations) {
            CAPTURE(activation_name(a));
            ActivationParams p;
            p.activation = a;
            p.elements = 4099;
            ActivationRun run = run_activation(p, raw(cpu), quick());
            REQUIRE(run.ok);
            REQUIRE(run.reports.size() == cpu.size());
            for (const auto& r : run.reports) {
                CAPTURE(r.backend);
                CHECK(r.ran);
                CHECK(r.check.pass);
                CHECK(r.total.samples == 3);
                CHECK(r.phases.size() == 3);
                CHECK(r.phases[0].total_ns() == r.samples_ns[0]);
                CHECK(r.total.median_ns > 0);
                CHECK(r.gbps > 0);
                CHECK(r.limit.ok);
            }
            CHECK(run.reference_output.size() == 4099);
        }
    }
    TEST_CASE("GPU backends that cannot run are reported with a reason and not a failure") {
        BackendList all = make_cpu_backends();
        for (auto& b : gpulab::gpu::make_backends()) all.push_back(std::move(b));
        ActivationParams p;
        p.elements = 1024;
        ActivationRun run = run_activation(p, raw(all), quick());
        REQUIRE(run.ok);
        for (const auto& r : run.reports) {
            if (r.kind == BackendKind::Gpu && !gpulab::gpu::probe().device_ok) {
                CHECK_FALSE(r.ran);
                CHECK_FALSE(r.availability.reason.empty());
            }
        }
    }
    TEST_CASE("a size beyond memory is refused before allocating") {
        BackendList cpu = make_cpu_backends();
        ActivationParams p;
        p.elements = int64_t{1} << 45;  // 128 TiB of floats
        ActivationRun run = run_activation(p, raw(cpu), quick());
        CHECK_FALSE(run.ok);
        CHECK(run.error.find("refused") != std::string::npos);
        CHECK(run.error.find("available") != std::string::npos);
    }
    TEST_CASE("an unreadable image is a message") {
        BackendList cpu = make_cpu_backends();
        ActivationParams p;
        p.image_path = "/nonexistent/picture.png";
        ActivationRun run = run_activation(p, raw(cpu), quick());
        CHECK_FALSE(run.ok);
        CHECK(run.error.find("/nonexistent/picture.png") != std::string::npos);
    }
    TEST_CASE("returning false from progress cancels the run") {
        BackendList cpu = make_cpu_backends();
        ActivationParams p;
        p.elements = 1 << 16;
        int calls = 0;
        ActivationRun run = run_activation(p, raw(cpu), quick(), [&](float, std::string_view) { return ++calls < 3; });
        CHECK_FALSE(run.ok);
        CHECK(run.error == "cancelled");
    }
    TEST_CASE("lesson step parameters apply on top of defaults") {
        std::map<std::string, ParamValue> params{{"activation", std::string("tanh")}, {"elements", int64_t{8192}}};
        ActivationParams p = activation_params_from(params, {});
        CHECK(p.activation == Activation::Tanh);
        CHECK(p.elements == 8192);
        CHECK(p.leaky_alpha == doctest::Approx(0.01f));
    }
}
