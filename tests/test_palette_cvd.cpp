// The colour-blind palette's colours (app/widgets/palette_colours.h) under simulated colour vision
// deficiency: Machado, Oliveira and Fernandes (2009), "A Physiologically-based Model for Simulation
// of Color Vision Deficiency", severity 1.0 (dichromacy) matrices for deuteranopia, protanopia and
// tritanopia, applied in linear RGB, the result compared in CIE L*a*b* (D65) with CIE76 delta E.
// Every pair of the five plotted backends' colours, of the training lesson's four layer kinds, ok
// against error, error against warning and the two ends of the confusion matrix's map must stay at least kMinDeltaE apart under each simulation;
// cpu-scalar and cpu-parallel, whose lines run side by side, at least kMinScalarParallel; the diverging
// maps of signed values (app/render/diverging_ramp.h) keep a value and its negation apart.
// scripts/cvd-check.py applies the same simulation to the exported pictures (docs/reliability.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "widgets/palette_colours.h"

using namespace gpulab::app;

namespace {

// delta E 76 of about 2.3 is a just-noticeable difference; 20 is two colours a reader names
// differently at a glance, for lines and swatches a few pixels wide.
constexpr double kMinDeltaE = 20.0;
constexpr double kMinScalarParallel = 30.0;

using Mat3 = std::array<std::array<double, 3>, 3>;

struct Simulation {
    const char* name;
    Mat3 m;
};

// Machado et al. 2009, Table 1, severity 1.0.
constexpr Simulation kSimulations[] = {
    {"deuteranopia", {{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}}},
    {"protanopia", {{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}}},
    {"tritanopia", {{{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}}},
};

double to_linear(uint8_t c) {
    const double v = c / 255.0;
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

std::array<double, 3> lab_of_linear(const std::array<double, 3>& rgb) {
    const double x = 0.4124 * rgb[0] + 0.3576 * rgb[1] + 0.1805 * rgb[2];
    const double y = 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2];
    const double z = 0.0193 * rgb[0] + 0.1192 * rgb[1] + 0.9505 * rgb[2];
    auto f = [](double t) { return t > 216.0 / 24389.0 ? std::cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; };
    const double fx = f(x / 0.95047), fy = f(y), fz = f(z / 1.08883);
    return {116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz)};
}

std::array<double, 3> simulated_lab(Rgb8 c, const Mat3& m) {
    const std::array<double, 3> lin{to_linear(c.r), to_linear(c.g), to_linear(c.b)};
    std::array<double, 3> out{};
    for (int i = 0; i < 3; ++i)
        out[i] = std::clamp(m[i][0] * lin[0] + m[i][1] * lin[1] + m[i][2] * lin[2], 0.0, 1.0);
    return lab_of_linear(out);
}

double delta_e(Rgb8 a, Rgb8 b, const Mat3& m) {
    const auto la = simulated_lab(a, m), lb = simulated_lab(b, m);
    return std::sqrt((la[0] - lb[0]) * (la[0] - lb[0]) + (la[1] - lb[1]) * (la[1] - lb[1]) +
                     (la[2] - lb[2]) * (la[2] - lb[2]));
}

constexpr Mat3 kIdentity{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};

}  // namespace

TEST_SUITE("palette") {

TEST_CASE("the simulation is the published one: white stays white, pure green loses its hue") {
    for (const Simulation& s : kSimulations) {
        CAPTURE(s.name);
        CHECK(delta_e({255, 255, 255}, {255, 255, 255}, s.m) == doctest::Approx(0.0));
        // Each row sums to 1: greys are unchanged.
        for (const auto& row : s.m) CHECK(row[0] + row[1] + row[2] == doctest::Approx(1.0).epsilon(1e-4));
    }
    // The classic failure the palette avoids: the default palette's green "ok" and red "error" are far
    // apart for normal vision and much closer for a deuteranope.
    const double normal = delta_e(kDefaultOk, kDefaultError, kIdentity);
    const double deutan = delta_e(kDefaultOk, kDefaultError, kSimulations[0].m);
    CHECK(normal > 80.0);
    CHECK(deutan < normal * 0.5);
}

TEST_CASE("every pair of backend colours stays apart under each simulation") {
    for (const Simulation& s : kSimulations) {
        for (std::size_t i = 0; i < std::size(kColourBlindBackends); ++i) {
            for (std::size_t j = i + 1; j < std::size(kColourBlindBackends); ++j) {
                const BackendColour& a = kColourBlindBackends[i];
                const BackendColour& b = kColourBlindBackends[j];
                const double d = delta_e(a.colour, b.colour, s.m);
                CAPTURE(s.name);
                CAPTURE(std::string(a.backend) + " vs " + std::string(b.backend));
                CAPTURE(d);
                CHECK(d >= kMinDeltaE);
            }
        }
    }
}

TEST_CASE("the training lesson's four layer kinds stay apart under each simulation") {
    for (const Simulation& s : kSimulations) {
        CAPTURE(s.name);
        for (std::size_t i = 0; i < std::size(kColourBlindLayers); ++i)
            for (std::size_t j = i + 1; j < std::size(kColourBlindLayers); ++j) {
                CAPTURE(i);
                CAPTURE(j);
                CHECK(delta_e(kColourBlindLayers[i], kColourBlindLayers[j], s.m) >= kMinDeltaE);
            }
    }
}

TEST_CASE("the tensor-core lesson's four formats stay apart under each simulation") {
    for (const Simulation& s : kSimulations) {
        CAPTURE(s.name);
        for (std::size_t i = 0; i < std::size(kColourBlindFormats); ++i)
            for (std::size_t j = i + 1; j < std::size(kColourBlindFormats); ++j) {
                CAPTURE(i);
                CAPTURE(j);
                CHECK(delta_e(kColourBlindFormats[i], kColourBlindFormats[j], s.m) >= kMinDeltaE);
            }
    }
}

TEST_CASE("cpu-scalar and cpu-parallel are well apart") {
    auto find = [](std::string_view name) {
        for (const BackendColour& e : kColourBlindBackends)
            if (e.backend == name) return e.colour;
        FAIL("no colour for " << std::string(name));
        return Rgb8{0, 0, 0};
    };
    for (const Simulation& s : kSimulations) {
        CAPTURE(s.name);
        CHECK(delta_e(find("cpu-scalar"), find("cpu-parallel"), s.m) >= kMinScalarParallel);
    }
}

TEST_CASE("status colours: ok, error and warning stay apart") {
    for (const Simulation& s : kSimulations) {
        CAPTURE(s.name);
        CHECK(delta_e(status_rgb(Status::Ok, true), status_rgb(Status::Error, true), s.m) >= kMinDeltaE);
        CHECK(delta_e(status_rgb(Status::Error, true), status_rgb(Status::Warn, true), s.m) >= kMinDeltaE);
        CHECK(delta_e(status_rgb(Status::Ok, true), status_rgb(Status::Warn, true), s.m) >= kMinDeltaE);
    }
}

TEST_CASE("the confusion matrix's map: one hue, lightness rising, ends well apart") {
    for (const Simulation& s : kSimulations) {
        CAPTURE(s.name);
        CHECK(delta_e(sequential_rgb(0.0f), sequential_rgb(1.0f), s.m) >= 2.0 * kMinDeltaE);
        double last = -1.0;
        for (int k = 0; k <= 10; ++k) {
            const double l = simulated_lab(sequential_rgb(static_cast<float>(k) / 10.0f), s.m)[0];
            CHECK(l > last);  // order survives as lightness
            last = l;
        }
    }
}

TEST_CASE("the diverging maps: the two signs stay apart and size reads as lightness") {
    // Both ramps (render/diverging_ramp.h): the colour-blind palette's blue-white-orange is its promise;
    // the default blue-white-red is checked too, since it is what most screens show. A value and its
    // negation, a quarter of the range or more from 0, must be named differently at a glance; on each
    // side, a larger size must be darker, so the size survives where the hue does not.
    for (DivergingRamp ramp : {DivergingRamp::BlueOrange, DivergingRamp::BlueRed}) {
        CAPTURE(diverging_positive_word(ramp));
        for (const Simulation& s : kSimulations) {
            CAPTURE(s.name);
            for (int k = 1; k <= 4; ++k) {
                const float t = static_cast<float>(k) / 4.0f;
                CAPTURE(t);
                CHECK(delta_e(diverging_rgb(ramp, -t), diverging_rgb(ramp, t), s.m) >= kMinDeltaE);
            }
            for (float side : {-1.0f, 1.0f}) {
                double last = 101.0;
                for (int k = 0; k <= 10; ++k) {
                    const double l = simulated_lab(diverging_rgb(ramp, side * static_cast<float>(k) / 10.0f), s.m)[0];
                    CAPTURE(k);
                    CHECK(l < last);
                    last = l;
                }
            }
        }
    }
    // The colour-blind ramp's ends are the further apart under every simulation.
    for (const Simulation& s : kSimulations)
        CHECK(delta_e(diverging_rgb(DivergingRamp::BlueOrange, -1.0f), diverging_rgb(DivergingRamp::BlueOrange, 1.0f), s.m) >
              delta_e(diverging_rgb(DivergingRamp::BlueRed, -1.0f), diverging_rgb(DivergingRamp::BlueRed, 1.0f), s.m));
}

}  // TEST_SUITE
