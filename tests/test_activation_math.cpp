// The activation formulas at their edges: core/ops/hd_math.h (the reference, also compiled by nvcc
// for the GPU kernels) and the vectorised versions of core/backends/simd/simd_kernels_impl.h, at every SIMD ISA
// this CPU can run. Edge values: 0, -0, +-1e-8, +-1, +-20, +-88, +-89, +-1e4, +-inf and NaN.
//
// NaN policy (hd_math.h): NaN in, NaN out, for every activation and every implementation.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu_scalar.h"
#include "ops/hd_math.h"
#include "ops/op_desc.h"
#include "backends/simd/simd_math.h"

using namespace gpulab;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

const std::vector<float> kEdges = {0.0f,  -0.0f,  1e-8f, -1e-8f, 1.0f,  -1.0f,  20.0f, -20.0f,
                                   88.0f, -88.0f, 89.0f, -89.0f, 1e4f,  -1e4f,  kInf,  -kInf};

// The vectorised kernel on one value, through a short array so that the value lands in the padded
// tail as well as in a full vector (both paths must agree).
std::vector<float> simd_on(cpu::SimdIsa isa, core::Activation a, float x, float alpha = 0.01f) {
    core::OpDesc op;
    op.activation = a;
    op.leaky_alpha = alpha;
    std::vector<float> in(37, x), out(37, 12345.0f);
    REQUIRE(cpu::activation_simd_with(isa, op, in.data(), out.data(), static_cast<int64_t>(in.size())));
    return out;
}

// The tolerance every vectorised transcendental is held to: |a - b| <= 2e-6 + 1e-5 |ref|.
bool close(float ref, float got) {
    if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got);
    if (std::isinf(ref) || std::isinf(got)) return ref == got;
    return std::fabs(static_cast<double>(ref) - got) <= 2e-6 + 1e-5 * std::fabs(static_cast<double>(ref));
}

}  // namespace

TEST_SUITE("activation-math") {
    TEST_CASE("ReLU keeps positives / zeroes negatives / passes -0 and NaN") {
        CHECK(hd::relu(3.5f) == 3.5f);
        CHECK(hd::relu(-3.5f) == 0.0f);
        CHECK(std::signbit(hd::relu(-0.0f)));  // x < 0 is false for -0: it passes through
        CHECK(hd::relu(kInf) == kInf);
        CHECK(hd::relu(-kInf) == 0.0f);
        CHECK(std::isnan(hd::relu(kNaN)));
    }

    TEST_CASE("leaky ReLU scales negatives by alpha") {
        CHECK(hd::leaky_relu(-2.0f, 0.1f) == doctest::Approx(-0.2f));
        CHECK(hd::leaky_relu(2.0f, 0.1f) == 2.0f);
        CHECK(hd::leaky_relu(-kInf, 0.01f) == -kInf);
        CHECK(std::isnan(hd::leaky_relu(kNaN, 0.01f)));
    }

    TEST_CASE("sigmoid limits and symmetry") {
        CHECK(hd::sigmoid(0.0f) == 0.5f);
        CHECK(hd::sigmoid(kInf) == 1.0f);
        CHECK(hd::sigmoid(-kInf) == 0.0f);
        CHECK(hd::sigmoid(89.0f) == 1.0f);
        CHECK(hd::sigmoid(-89.0f) == 0.0f);  // e^89 overflows to inf and 1/inf is the right limit
        CHECK(hd::sigmoid(-20.0f) == doctest::Approx(2.0611536e-9).epsilon(1e-5));
        CHECK(hd::sigmoid(2.0f) + hd::sigmoid(-2.0f) == doctest::Approx(1.0f));
        CHECK(std::isnan(hd::sigmoid(kNaN)));
    }

    TEST_CASE("tanh limits / oddness and small arguments") {
        CHECK(hd::tanh_act(kInf) == 1.0f);
        CHECK(hd::tanh_act(-kInf) == -1.0f);
        CHECK(hd::tanh_act(20.0f) == 1.0f);
        CHECK(std::signbit(hd::tanh_act(-0.0f)));
        CHECK(hd::tanh_act(1e-8f) == doctest::Approx(1e-8f).epsilon(1e-6));
        CHECK(hd::tanh_act(-1.0f) == doctest::Approx(-0.7615942f));
        CHECK(std::isnan(hd::tanh_act(kNaN)));
    }

    TEST_CASE("GELU (tanh form) limits and known values") {
        CHECK(hd::gelu(0.0f) == 0.0f);
        CHECK(hd::gelu(1.0f) == doctest::Approx(0.8411920f));
        CHECK(hd::gelu(-1.0f) == doctest::Approx(-0.1588080f));
        CHECK(hd::gelu(20.0f) == 20.0f);
        CHECK(hd::gelu(1e4f) == 1e4f);
        CHECK(hd::gelu(kInf) == kInf);
        CHECK(hd::gelu(-20.0f) == 0.0f);
        CHECK(hd::gelu(-1e4f) == 0.0f);
        CHECK(hd::gelu(-kInf) == 0.0f);  // -0 by the explicit cut, not -inf * 0 = NaN
        CHECK(std::isnan(hd::gelu(kNaN)));
    }

    TEST_CASE("every vectorised activation follows the NaN policy at every ISA") {
        for (cpu::SimdIsa isa : cpu::usable_simd_isas()) {
            for (core::Activation a : core::kAllActivations) {
                const std::string isa_name(cpu::simd_isa_name(isa));
                CAPTURE(isa_name);
                const std::string act(core::activation_name(a));
                CAPTURE(act);
                for (float v : simd_on(isa, a, kNaN)) CHECK(std::isnan(v));
            }
        }
    }

    TEST_CASE("vectorised activations at the edge values match hd_math.h at every ISA") {
        for (cpu::SimdIsa isa : cpu::usable_simd_isas()) {
            for (core::Activation a : core::kAllActivations) {
                core::OpDesc op;
                op.activation = a;
                for (float x : kEdges) {
                    float ref = 0.0f;
                    cpu::activation_reference(op, &x, &ref, 1);
                    const std::string isa_name(cpu::simd_isa_name(isa));
                    CAPTURE(isa_name);
                    const std::string act(core::activation_name(a));
                    CAPTURE(act);
                    CAPTURE(x);
                    CAPTURE(ref);
                    const std::vector<float> got = simd_on(isa, a, x);
                    CAPTURE(got.front());
                    for (float v : got) CHECK(close(ref, v));
                    if (a == core::Activation::Relu || a == core::Activation::LeakyRelu) {
                        for (float v : got) CHECK(std::signbit(v) == std::signbit(ref));  // bit-exact, -0 included
                    }
                }
            }
        }
    }

    TEST_CASE("vectorised limits are exact where the math is exact") {
        for (cpu::SimdIsa isa : cpu::usable_simd_isas()) {
            const std::string isa_name(cpu::simd_isa_name(isa));
            CAPTURE(isa_name);
            CHECK(simd_on(isa, core::Activation::Sigmoid, -kInf).front() == 0.0f);
            CHECK(simd_on(isa, core::Activation::Sigmoid, kInf).front() == 1.0f);
            CHECK(simd_on(isa, core::Activation::Sigmoid, 0.0f).front() == 0.5f);
            CHECK(simd_on(isa, core::Activation::Tanh, kInf).front() == 1.0f);
            CHECK(simd_on(isa, core::Activation::Tanh, -kInf).front() == -1.0f);
            CHECK(std::signbit(simd_on(isa, core::Activation::Tanh, -0.0f).front()));
            CHECK(simd_on(isa, core::Activation::Gelu, kInf).front() == kInf);
            CHECK(simd_on(isa, core::Activation::Gelu, -kInf).front() == 0.0f);
            // Relative accuracy near 0, where 1 - e^-2x would cancel: the series branch keeps it.
            CHECK(simd_on(isa, core::Activation::Tanh, 1e-8f).front() == doctest::Approx(1e-8).epsilon(1e-6));
            CHECK(simd_on(isa, core::Activation::Tanh, -1e-30f).front() == doctest::Approx(-1e-30).epsilon(1e-6));
            CHECK(simd_on(isa, core::Activation::Sigmoid, -20.0f).front() ==
                  doctest::Approx(2.0611536e-9).epsilon(1e-5));
        }
    }

    TEST_CASE("the chosen ISA is named and usable") {
        const std::string name(cpu::simd_isa());
        CHECK_FALSE(name.empty());
        CHECK(cpu::simd_isa_usable(cpu::best_simd_isa()));
        CHECK(cpu::simd_isa_usable(cpu::SimdIsa::Baseline));  // the fallback always exists
        CHECK(cpu::simd_isa_lanes(cpu::best_simd_isa()) >= 4);
    }
}
