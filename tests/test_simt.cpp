// The SIMT warp emulator (core/workloads/simd_mimd.h over core/ops/simt.h): for every divergence
// pattern, the steps a warp takes and the active mask of each step, checked against masks worked
// out by hand (bit i = lane i), and the theoretical slowdown factors the lesson quotes.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>

#include "ops/simt.h"
#include "workloads/simd_mimd.h"

using namespace gpulab;
using core::emulate_warp;
using core::WarpTrace;
using simt::Pattern;

namespace {

// Disjoint masks whose union is the full warp: every lane ran exactly one path.
void check_partition(const WarpTrace& t) {
    uint32_t seen = 0;
    for (const core::WarpStep& s : t.steps) {
        CHECK(s.active != 0u);
        CHECK((seen & s.active) == 0u);
        seen |= s.active;
    }
    CHECK(seen == 0xFFFFFFFFu);
}

void check_ascending(const WarpTrace& t) {
    for (std::size_t i = 1; i < t.steps.size(); ++i) CHECK(t.steps[i - 1].path < t.steps[i].path);
}

}  // namespace

TEST_SUITE("simt") {
    TEST_CASE("uniform warp runs one step with every lane active") {
        for (int w : {0, 1, 7, 1000}) {
            const WarpTrace t = emulate_warp(Pattern::Uniform, w);
            CHECK(t.warp == w);
            REQUIRE(t.steps.size() == 1);
            CHECK(t.steps[0].path == 0);
            CHECK(t.steps[0].active == 0xFFFFFFFFu);
        }
    }

    TEST_CASE("lane parity splits the warp into even and odd lanes") {
        const WarpTrace t = emulate_warp(Pattern::LaneParity, 3);
        REQUIRE(t.steps.size() == 2);
        CHECK(t.steps[0].path == 0);
        CHECK(t.steps[0].active == 0x55555555u);  // lanes 0, 2, 4, ...
        CHECK(t.steps[1].path == 1);
        CHECK(t.steps[1].active == 0xAAAAAAAAu);  // lanes 1, 3, 5, ...
    }

    TEST_CASE("four-way runs four steps of every fourth lane") {
        const WarpTrace t = emulate_warp(Pattern::FourWay, 0);
        REQUIRE(t.steps.size() == 4);
        const uint32_t expected[4] = {0x11111111u, 0x22222222u, 0x44444444u, 0x88888888u};
        for (int i = 0; i < 4; ++i) {
            CHECK(t.steps[i].path == i);
            CHECK(t.steps[i].active == expected[i]);
        }
    }

    TEST_CASE("eight-way runs eight steps of every eighth lane") {
        const WarpTrace t = emulate_warp(Pattern::EightWay, 5);
        REQUIRE(t.steps.size() == 8);
        for (int i = 0; i < 8; ++i) {
            CHECK(t.steps[i].path == i);
            CHECK(t.steps[i].active == (0x01010101u << i));
        }
    }

    TEST_CASE("thirty-two-way runs one lane per step") {
        const WarpTrace t = emulate_warp(Pattern::ThirtyTwoWay, 2);
        REQUIRE(t.steps.size() == 32);
        for (int i = 0; i < 32; ++i) {
            CHECK(t.steps[i].path == i);
            CHECK(t.steps[i].active == (1u << i));
        }
    }

    TEST_CASE("per-warp divergence leaves each warp whole") {
        std::set<int> paths;
        for (int w = 0; w < 16; ++w) {
            const WarpTrace t = emulate_warp(Pattern::PerWarp, w);
            REQUIRE(t.steps.size() == 1);
            CHECK(t.steps[0].active == 0xFFFFFFFFu);
            CHECK(t.steps[0].path == w % 8);
            paths.insert(t.steps[0].path);
        }
        CHECK(paths.size() == 8);  // the warps do differ from each other: that costs nothing
    }

    TEST_CASE("random pattern steps partition the warp") {
        for (int w = 0; w < 64; ++w) {
            const WarpTrace t = emulate_warp(Pattern::Random, w);
            CHECK(t.steps.size() >= 1);
            CHECK(t.steps.size() <= 8);
            check_ascending(t);
            check_partition(t);
            for (const core::WarpStep& s : t.steps) {
                CHECK(s.path >= 0);
                CHECK(s.path < 8);
            }
        }
    }

    TEST_CASE("every pattern's steps partition the warp in ascending path order") {
        for (Pattern p : core::kAllPatterns) {
            for (int w : {0, 1, 31, 4096}) {
                const WarpTrace t = emulate_warp(p, w);
                check_ascending(t);
                check_partition(t);
            }
        }
    }

    TEST_CASE("emulated masks match pattern_key lane by lane") {
        for (Pattern p : core::kAllPatterns) {
            const int w = 9;
            const WarpTrace t = emulate_warp(p, w);
            for (const core::WarpStep& s : t.steps) {
                for (int lane = 0; lane < 32; ++lane) {
                    const bool took = simt::pattern_key(p, int64_t{w} * 32 + lane) == s.path;
                    CHECK(took == (((s.active >> lane) & 1u) != 0u));
                }
            }
        }
    }

    TEST_CASE("theoretical factors are the distinct paths per warp") {
        constexpr int kWarps = 256;
        CHECK(core::theoretical_factor(Pattern::Uniform, kWarps) == doctest::Approx(1.0));
        CHECK(core::theoretical_factor(Pattern::LaneParity, kWarps) == doctest::Approx(2.0));
        CHECK(core::theoretical_factor(Pattern::FourWay, kWarps) == doctest::Approx(4.0));
        CHECK(core::theoretical_factor(Pattern::EightWay, kWarps) == doctest::Approx(8.0));
        CHECK(core::theoretical_factor(Pattern::ThirtyTwoWay, kWarps) == doctest::Approx(32.0));
        CHECK(core::theoretical_factor(Pattern::PerWarp, kWarps) == doctest::Approx(1.0));
        const double random = core::theoretical_factor(Pattern::Random, kWarps);
        CHECK(random > 1.0);
        CHECK(random <= 8.0);
        // Not a fixed count: it depends on how pattern_key's hash spreads 32 neighbouring indices.
        CHECK(random > 2.0);
        for (Pattern p : core::kAllPatterns) {
            if (p != Pattern::Random) CHECK(core::theoretical_factor(p, kWarps) == simt::paths_per_warp(p));
        }
        CHECK(core::theoretical_factor(Pattern::FourWay, 0) == 0.0);
    }

    TEST_CASE("pattern names round-trip and labels are filled") {
        std::set<std::string_view> names;
        for (Pattern p : core::kAllPatterns) {
            const std::string_view name = core::pattern_name(p);
            CHECK(!name.empty());
            CHECK(!core::pattern_label(p).empty());
            names.insert(name);
            const auto back = core::parse_pattern(name);
            REQUIRE(back.has_value());
            CHECK(*back == p);
        }
        CHECK(names.size() == core::kAllPatterns.size());
        CHECK(core::pattern_name(Pattern::FourWay) == "4-way");
        CHECK_FALSE(core::parse_pattern("five-way").has_value());
    }
}
