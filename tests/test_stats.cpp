// Statistics of the measurement module: median, percentiles, spread, GB/s.
#include <doctest/doctest.h>

#include "measure/format.h"
#include "measure/stats.h"

using namespace gpulab::core;

TEST_SUITE("measure") {
    TEST_CASE("summarize gives median and spread of unsorted samples") {
        Stats s = summarize({50, 10, 40, 20, 30});
        CHECK(s.samples == 5);
        CHECK(s.min_ns == 10);
        CHECK(s.max_ns == 50);
        CHECK(s.median_ns == 30);
        CHECK(s.p25_ns == 20);
        CHECK(s.p75_ns == 40);
        CHECK(s.mean_ns == doctest::Approx(30.0));
    }
    TEST_CASE("median of an even count interpolates") {
        Stats s = summarize({1, 2, 3, 4});
        CHECK(s.median_ns == 3);  // 2.5 rounds half away from zero
        CHECK(summarize({10, 20}).median_ns == 15);
    }
    TEST_CASE("empty input is zero samples and not a crash") {
        Stats s = summarize({});
        CHECK(s.samples == 0);
        CHECK(s.median_ns == 0);
    }
    TEST_CASE("one sample is its own median and spread") {
        Stats s = summarize({7});
        CHECK(s.min_ns == 7);
        CHECK(s.median_ns == 7);
        CHECK(s.max_ns == 7);
    }
    TEST_CASE("GB/s from bytes and nanoseconds") {
        CHECK(gbps(1e9, 1'000'000'000) == doctest::Approx(1.0));
        CHECK(gbps(8e6, 1'000'000) == doctest::Approx(8.0));
        CHECK(gbps(100, 0) == 0.0);
    }
    TEST_CASE("durations format in one place") {
        CHECK(format_duration(812) == "812 ns");
        CHECK(format_duration(3410) == "3.41 us");
        CHECK(format_duration(12'700'000) == "12.7 ms");
        CHECK(format_duration(1'250'000'000) == "1.25 s");
        CHECK(format_count(1048576) == "1,048,576");
        CHECK(format_pow2(1 << 20) == "2^20");
        CHECK(format_pow2(1000) == "1,000");
    }
}
