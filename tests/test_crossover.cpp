// Crossover detection on synthetic curves: none, one, several crossings, and noise.
#include <doctest/doctest.h>

#include <cmath>

#include "measure/crossover.h"

using namespace gpulab::core;

namespace {
std::vector<double> pow2_sizes(int lo, int hi) {
    std::vector<double> s;
    for (int e = lo; e <= hi; ++e) s.push_back(std::ldexp(1.0, e));
    return s;
}
}  // namespace

TEST_SUITE("crossover") {
    TEST_CASE("a GPU-like curve with a fixed cost crosses a CPU-like linear curve once") {
        std::vector<double> sizes = pow2_sizes(4, 28), cpu, gpu;
        for (double n : sizes) {
            cpu.push_back(1.0 * n);           // 1 ns per element
            gpu.push_back(20000.0 + 0.05 * n);  // 20 us fixed, then 20x faster per element
        }
        auto c = find_crossings(sizes, cpu, gpu);
        REQUIRE(c.size() == 1);
        CHECK(c[0].b_becomes_faster);
        // exact answer: n = 20000 / 0.95 = 21053; log-log interpolation lands within one octave step
        CHECK(c[0].size > 16384);
        CHECK(c[0].size < 32768);
        auto above = wins_above(sizes, cpu, gpu);
        REQUIRE(above);
        CHECK(*above == doctest::Approx(c[0].size));
    }
    TEST_CASE("no crossing when one curve is always faster") {
        std::vector<double> sizes = pow2_sizes(4, 20), a, b;
        for (double n : sizes) a.push_back(n), b.push_back(2 * n);
        CHECK(find_crossings(sizes, a, b).empty());
        CHECK_FALSE(wins_above(sizes, a, b));           // B never wins
        CHECK(*wins_above(sizes, b, a) == sizes.front());  // B (here a) wins everywhere
    }
    TEST_CASE("several real crossings are all found in order") {
        std::vector<double> sizes = pow2_sizes(0, 11);
        std::vector<double> a(sizes.size(), 10.0);
        std::vector<double> b = {20, 20, 20, 5, 5, 5, 20, 20, 20, 5, 5, 5};
        auto c = find_crossings(sizes, a, b);
        REQUIRE(c.size() == 3);
        CHECK(c[0].b_becomes_faster);
        CHECK_FALSE(c[1].b_becomes_faster);
        CHECK(c[2].b_becomes_faster);
        CHECK(c[0].index == 2);
        CHECK(c[1].index == 5);
        CHECK(c[2].index == 8);
        CHECK(*wins_above(sizes, a, b) == doctest::Approx(c[2].size));
    }
    TEST_CASE("a single noisy point does not create a pair of crossings") {
        std::vector<double> sizes = pow2_sizes(0, 9);
        std::vector<double> a(sizes.size(), 10.0);
        std::vector<double> b = {20, 20, 9.5, 20, 20, 20, 5, 5, 5, 5};  // point 2 is noise
        auto c = find_crossings(sizes, a, b);
        REQUIRE(c.size() == 1);
        CHECK(c[0].index == 5);
    }
    TEST_CASE("a change at the very last point still counts") {
        std::vector<double> sizes = {1, 2, 4, 8};
        std::vector<double> a = {10, 10, 10, 10}, b = {20, 20, 20, 5};
        auto c = find_crossings(sizes, a, b);
        REQUIRE(c.size() == 1);
        CHECK(c[0].size > 4);
        CHECK(c[0].size < 8);
    }
    TEST_CASE("too few points give no crossing") {
        CHECK(find_crossings({1}, {1}, {2}).empty());
        CHECK(find_crossings({}, {}, {}).empty());
    }
}
