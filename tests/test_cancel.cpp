// The stop request in loops without a progress callback (core/runtime/cancel.h), proved without a
// clock (issue 38: no test may depend on the machine being idle): each loop is stopped by a request
// raised before or during it, and the test counts the work done after the request, which must be
// at most the piece in hand. The delay itself is a speed: `gpulab bench --suite stop` measures it.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "backends/cpu_parallel.h"
#include "backends/cpu_scalar.h"
#include "ops/tensor_compare.h"
#include "runtime/cancel.h"
#include "workloads/activation_workload.h"

using namespace gpulab::core;

namespace {

// Raised for the body of a test case, lowered however the case ends.
struct StopRequested {
    StopRequested() { set_cancel_requested(true); }
    ~StopRequested() { set_cancel_requested(false); }
};

constexpr float kUntouched = -12345.0f;

Tensor filled(int64_t n, float value) {
    Tensor t = Tensor::zeros({n});
    std::fill(t.data.begin(), t.data.end(), value);
    return t;
}

bool all_untouched(const Tensor& t) {
    return std::all_of(t.data.begin(), t.data.end(), [](float v) { return v == kUntouched; });
}

}  // namespace

TEST_SUITE("measure") {
    TEST_CASE("a stop request ends input generation with Cancelled, and nothing is left raised") {
        set_cancel_requested(false);
        CHECK(make_feature_map(1 << 12, 1).size() == (1 << 12));
        {
            StopRequested stop;
            CHECK(cancel_requested());
            CHECK_THROWS_AS(make_feature_map(1 << 16, 1), Cancelled);
            CHECK_THROWS_AS(make_feature_map(65521, 1), Cancelled);  // a prime: one row of 65521
        }
        CHECK_FALSE(cancel_requested());
        CHECK(make_feature_map(1 << 16, 1).size() == (1 << 16));
    }

    TEST_CASE("the plain loops stop before their next piece: activation and convolution write nothing") {
        const int64_t n = 4 * kCancelCheckElements;
        const Tensor in = filled(n, 0.5f);
        Tensor out = filled(n, kUntouched);
        OpDesc gelu;
        gelu.activation = Activation::Gelu;
        {
            StopRequested stop;
            CHECK_THROWS_AS(gpulab::cpu::activation_reference(gelu, in.ptr(), out.ptr(), n), Cancelled);
        }
        CHECK(all_untouched(out));
        gpulab::cpu::activation_reference(gelu, in.ptr(), out.ptr(), n);  // lowered: it runs through
        CHECK(std::none_of(out.data.begin(), out.data.end(), [](float v) { return v == kUntouched; }));

        Conv2dDesc d;
        d.height = d.width = 64;
        const Tensor image = filled(d.input_elements(), 1.0f), filters = filled(d.filter_elements(), 0.1f);
        Tensor conv = filled(d.output_elements(), kUntouched);
        {
            StopRequested stop;
            CHECK_THROWS_AS(gpulab::cpu::conv2d_reference(d, image.ptr(), filters.ptr(), conv.ptr()), Cancelled);
        }
        CHECK(all_untouched(conv));
    }

    TEST_CASE("cpu-parallel passes the stop request up instead of reporting a failure") {
        auto backend = gpulab::cpu::make_parallel_backend();
        const int64_t n = 1 << 20;
        const Tensor in = filled(n, -1.0f);
        Tensor out = filled(n, kUntouched);
        OpDesc relu;
        {
            StopRequested stop;
            CHECK_THROWS_AS(backend->run(relu, in, out), Cancelled);
        }
        CHECK(all_untouched(out));
        const RunResult r = backend->run(relu, in, out);
        CHECK_MESSAGE(r.ok, r.error);
        CHECK(out.data[n - 1] == 0.0f);
    }

    TEST_CASE("allocation and comparison call their between-pieces hook, so a stop ends them early") {
        const int64_t n = 10 * Tensor::kZeroPieceFloats + 3;
        int zero_pieces = 0;
        const Tensor z = Tensor::zeros({n}, [&] { ++zero_pieces; });
        CHECK(z.size() == n);
        CHECK(zero_pieces == 11);
        CHECK(std::all_of(z.data.begin(), z.data.end(), [](float v) { return v == 0.0f; }));
        int asked = 0;
        CHECK_THROWS_AS(Tensor::zeros({n}, [&] { if (++asked == 3) throw Cancelled(); }), Cancelled);
        CHECK(asked == 3);  // two pieces zeroed, the third never started

        const Tensor a = filled(n, 1.0f);
        int compare_pieces = 0;
        const Comparison c = compare(a, a, {}, [&] { ++compare_pieces; });
        CHECK(c.pass);
        CHECK(compare_pieces == static_cast<int>((n + kComparePieceElements - 1) / kComparePieceElements));
        {
            StopRequested stop;
            CHECK_THROWS_AS(compare(a, a, {}, throw_if_cancelled), Cancelled);
            CHECK_THROWS_AS(Tensor::zeros({n}, throw_if_cancelled), Cancelled);
        }
    }

    TEST_CASE("a stop raised during a sample ends the measurement before the next sample or warm-up run") {
        MeasureConfig config;
        config.warmup = 3;
        config.min_samples = 10;
        config.max_samples = 10;
        int runs = 0;
        auto sample = [&](int stop_on) {
            return [&runs, stop_on] {
                RunResult r;
                r.ok = true;
                r.t.compute_ns = 1000;
                if (++runs == stop_on) set_cancel_requested(true);  // the window leaves the step now
                return r;
            };
        };
        // Raised in the second warm-up run: the third never starts, nor any sample.
        BackendReport warm;
        CHECK_FALSE(measure_samples(warm, config, sample(2), {}, 0.0f, 1.0f));
        set_cancel_requested(false);
        CHECK(runs == 2);
        CHECK(warm.samples_ns.empty());
        // Raised in the fifth timed run (warm-up runs 1-3, samples 4-5): the sixth never starts.
        runs = 0;
        BackendReport timed;
        CHECK_FALSE(measure_samples(timed, config, sample(5), {}, 0.0f, 1.0f));
        set_cancel_requested(false);
        CHECK(runs == 5);
        CHECK(timed.samples_ns.size() == 2);
        CHECK_FALSE(timed.ran);
    }

    TEST_CASE("a stop raised while a backend warms up ends run_activation as cancelled, with no samples") {
        auto scalar = gpulab::cpu::make_scalar_backend();
        Backend* backends[] = {scalar.get()};
        ActivationParams p;
        p.elements = 1 << 16;
        int stages_after_stop = 0;
        const ActivationRun run = run_activation(p, backends, {}, [&](float, std::string_view stage) {
            if (cancel_requested()) ++stages_after_stop;
            if (stage.starts_with("warming up")) set_cancel_requested(true);
            return true;  // only the flag says stop, as for a loop with no callback to ask
        });
        set_cancel_requested(false);
        CHECK(run.error == "cancelled");
        CHECK_FALSE(run.ok);
        CHECK(run.reports.empty());
        CHECK(stages_after_stop == 0);
    }
}
