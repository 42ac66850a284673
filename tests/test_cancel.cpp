// The stop request loops without a progress callback check (core/runtime/cancel.h): generating a large
// input stops at once, and a simulated kernel stops between blocks, each with "cancelled".
#include <doctest/doctest.h>

#include "runtime/cancel.h"
#include "workloads/activation_workload.h"

using namespace gpulab::core;

TEST_SUITE("measure") {
    TEST_CASE("a stop request ends input generation with Cancelled, and nothing is left raised") {
        set_cancel_requested(false);
        CHECK(make_feature_map(1 << 12, 1).size() == (1 << 12));
        set_cancel_requested(true);
        CHECK(cancel_requested());
        CHECK_THROWS_AS(make_feature_map(1 << 16, 1), Cancelled);
        set_cancel_requested(false);
        CHECK_FALSE(cancel_requested());
        CHECK(make_feature_map(1 << 16, 1).size() == (1 << 16));
    }
}
