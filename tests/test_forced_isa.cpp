// Forcing the CPU instruction set (GPULAB_ISA=avx512|avx2|baseline, `gpulab bench --isa`): a
// request is checked against what the CPU has and refused with a sentence otherwise, and
// cpu-parallel built for each ISA this CPU has (the baseline always) gives cpu-scalar's results
// within the stated bounds: activations bit-exact (ReLU family) or within abs 2e-6 + rel 1e-5
// (sigmoid, tanh, GELU); convolution within conv2d_tolerance. The CLI side (refusal message,
// the ISA in bench records) is in tests/cli_tests.cmake.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "backends/backend.h"
#include "ops/tensor_compare.h"
#include "ops/conv2d.h"
#include "backends/conv2d/cpu_conv2d.h"
#include "backends/cpu_parallel.h"
#include "backends/cpu_scalar.h"
#include "backends/simd/simd_math.h"
#include "workloads/conv2d_workload.h"

using namespace gpulab;
using cpu::SimdIsa;

namespace {

constexpr core::Tolerance kTranscendentalTolerance{2e-6, 1e-5};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_SUITE("forced ISA") {
    TEST_CASE("no request: the best ISA the CPU has - not forced") {
        const cpu::IsaChoice c = cpu::resolve_isa_request("", {SimdIsa::Baseline, SimdIsa::Avx2Fma});
        CHECK(c.isa == SimdIsa::Avx2Fma);
        CHECK_FALSE(c.forced);
        CHECK(c.error.empty());
    }

    TEST_CASE("a request the CPU can honour is forced - even below the best") {
        const std::vector<SimdIsa> all = {SimdIsa::Baseline, SimdIsa::Avx2Fma, SimdIsa::Avx512};
        CHECK(cpu::resolve_isa_request("avx2", all).isa == SimdIsa::Avx2Fma);
        CHECK(cpu::resolve_isa_request("avx2", all).forced);
        CHECK(cpu::resolve_isa_request("baseline", all).isa == SimdIsa::Baseline);
        CHECK(cpu::resolve_isa_request("avx512", all).isa == SimdIsa::Avx512);
        CHECK(cpu::resolve_isa_request("avx512", all).error.empty());
    }

    TEST_CASE("an ISA the CPU lacks is refused with a sentence naming what it has") {
        const cpu::IsaChoice c = cpu::resolve_isa_request("avx512", {SimdIsa::Baseline, SimdIsa::Avx2Fma});
        CHECK_FALSE(c.forced);
        CHECK(c.isa == SimdIsa::Avx2Fma);  // the safe fallback, should a caller go on
        const std::string want = "GPULAB_ISA=avx512 asks for AVX-512, which this CPU (or this build) does not have; it has " +
                                 std::string(cpu::simd_isa_name(SimdIsa::Baseline)) + ", AVX2+FMA";
        CHECK(c.error == want);
        const cpu::IsaChoice old = cpu::resolve_isa_request("avx2", {SimdIsa::Baseline});
        CHECK(contains(old.error, "asks for AVX2+FMA, which this CPU (or this build) does not have"));
    }

    TEST_CASE("an unknown name is refused with the names that work") {
        const cpu::IsaChoice c = cpu::resolve_isa_request("avx3", {SimdIsa::Baseline});
        CHECK(c.error == "GPULAB_ISA=avx3 is not an instruction set gpulab knows: use avx512, avx2 or baseline");
        CHECK_FALSE(c.forced);
    }

    TEST_CASE("this process's choice is usable and named in the summary") {
        CHECK(cpu::simd_isa_usable(cpu::isa_choice().isa));
        CHECK(contains(cpu::isa_summary(), std::string(cpu::simd_isa_name(cpu::best_simd_isa()))));
    }

    TEST_CASE("cpu-parallel on every ISA this CPU has equals cpu-scalar (activations)") {
        const std::vector<SimdIsa> isas = cpu::usable_simd_isas();
        REQUIRE_FALSE(isas.empty());
        CHECK(isas.front() == SimdIsa::Baseline);  // the baseline is always among them
        auto scalar = cpu::make_scalar_backend();
        // Odd length: whole vectors, a tail, and several pool chunks.
        const int64_t n = (int64_t{1} << 17) + 13;
        const core::Tensor in = core::make_random_tensor({n}, 11);
        for (SimdIsa isa : isas) {
            auto par = cpu::make_parallel_backend(isa);
            CHECK(contains(std::string(par->description()), std::string(cpu::simd_isa_name(isa))));
            for (core::Activation a : core::kAllActivations) {
                core::OpDesc op;
                op.activation = a;
                core::Tensor want = core::Tensor::zeros({n}), got = core::Tensor::zeros({n});
                REQUIRE(scalar->run(op, in, want).ok);
                const core::RunResult r = par->run(op, in, got);
                INFO(std::string(cpu::simd_isa_name(isa)) << " " << op.label());
                REQUIRE(r.ok);
                const bool exact = a == core::Activation::Relu || a == core::Activation::LeakyRelu;
                const core::Comparison c = core::compare(want, got, exact ? core::Tolerance{0, 0} : kTranscendentalTolerance);
                CHECK_MESSAGE(c.pass, c.verdict);
            }
        }
    }

    TEST_CASE("cpu-parallel on every ISA this CPU has equals cpu-scalar (multi-channel convolution)") {
        auto scalar = cpu::make_scalar_backend();
        core::Conv2dDesc d;
        d.batch = 2, d.channels = 32, d.height = 14, d.width = 14, d.filters = 32, d.kernel = 3;
        const core::Tensor in = core::make_random_tensor({d.batch, d.channels, d.height, d.width}, 5);
        const core::Tensor f = core::make_random_tensor({d.filters, d.channels, 3, 3}, 6);
        core::Tensor want = core::Tensor::zeros({d.batch, d.filters, d.out_height(), d.out_width()});
        REQUIRE(scalar->run_conv2d(d, in, f, want).ok);
        const core::Tolerance tol = core::conv2d_tolerance(d, in, f);
        for (SimdIsa isa : cpu::usable_simd_isas()) {
            auto par = cpu::make_parallel_backend(isa);
            core::Tensor got = core::Tensor::zeros(want.shape);
            INFO(std::string(cpu::simd_isa_name(isa)));
            REQUIRE(par->run_conv2d(d, in, f, got).ok);
            const core::Comparison c = core::compare(want, got, tol);
            CHECK_MESSAGE(c.pass, c.verdict);
            CHECK(contains(par->conv2d_implementation(d), std::string(cpu::simd_isa_name(isa))));
        }
    }

    TEST_CASE("cpu-parallel's im2col + GEMM path on every ISA this CPU has equals cpu-scalar - bias included") {
        // One input channel with 32 filters (a CNN's first layer) and a strided layer take the GEMM
        // path on AVX2 and AVX-512 (the implementation line says so); the baseline keeps the direct
        // kernels. conv2d_parallel_bias (training's forward) adds the bias on either path.
        auto scalar = cpu::make_scalar_backend();
        core::Conv2dDesc first, strided;
        first.batch = 3, first.channels = 1, first.height = 28, first.width = 28, first.filters = 32, first.kernel = 3;
        first.padding = core::Padding::None;
        strided.batch = 2, strided.channels = 8, strided.height = 15, strided.width = 15, strided.filters = 16;
        strided.kernel = 3, strided.stride = 2;
        for (const core::Conv2dDesc& d : {first, strided}) {
            const core::Tensor in = core::make_random_tensor({d.batch, d.channels, d.height, d.width}, 5);
            const core::Tensor f = core::make_random_tensor({d.filters, d.channels, d.kernel, d.kernel}, 6);
            core::Tensor want = core::Tensor::zeros({d.batch, d.filters, d.out_height(), d.out_width()});
            REQUIRE(scalar->run_conv2d(d, in, f, want).ok);
            const core::Tolerance tol = core::conv2d_tolerance(d, in, f);
            for (SimdIsa isa : cpu::usable_simd_isas()) {
                auto par = cpu::make_parallel_backend(isa);
                core::Tensor got = core::Tensor::zeros(want.shape);
                INFO(std::string(cpu::simd_isa_name(isa)) << " " << d.to_string());
                REQUIRE(par->run_conv2d(d, in, f, got).ok);
                const core::Comparison c = core::compare(want, got, tol);
                CHECK_MESSAGE(c.pass, c.verdict);
                CHECK(contains(par->conv2d_implementation(d), "im2col + GEMM") == (isa != SimdIsa::Baseline));
            }
            // The bias, on this process's ISA: every output of filter k moves by bias[k].
            std::vector<float> bias(static_cast<std::size_t>(d.filters));
            for (std::size_t k = 0; k < bias.size(); ++k) bias[k] = 0.25f * static_cast<float>(k) - 2.0f;
            core::Tensor got = core::Tensor::zeros(want.shape);
            cpu::conv2d_parallel_bias(d, in.ptr(), f.ptr(), bias.data(), got.ptr());
            const int64_t plane = d.out_height() * d.out_width();
            for (int64_t i = 0; i < got.size(); ++i)
                got.data[static_cast<std::size_t>(i)] -= bias[static_cast<std::size_t>((i / plane) % d.filters)];
            const core::Comparison c = core::compare(want, got, tol);
            CHECK_MESSAGE(c.pass, c.verdict);
        }
    }
}
