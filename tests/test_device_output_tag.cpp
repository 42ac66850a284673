// core/backends/device_output_tag.h: the convolution and activation views read a GPU backend's output buffer
// only while it still holds their own run (issue 13, item 1).
#include <doctest/doctest.h>

#include "backends/device_output_tag.h"

using gpulab::core::DeviceOutputTag;

TEST_SUITE("device-output-tag") {
    TEST_CASE("the run on screen is shown from the device until anyone runs again") {
        DeviceOutputTag tag;
        CHECK_FALSE(tag.current(0, 1, false));  // nothing remembered yet
        // Reports: cpu-scalar (no device output: 0), cuda-kernel at its 5th run, cudnn at its 3rd.
        tag.remember({0, 5, 3}, false);
        CHECK_FALSE(tag.current(0, 0, false));
        CHECK(tag.current(1, 5, false));
        CHECK(tag.current(2, 3, false));
        // Another lesson's run on the shared cuda-kernel backend: its buffer now holds that run.
        CHECK_FALSE(tag.current(1, 6, false));
        CHECK(tag.current(2, 3, false));
        CHECK_FALSE(tag.current(3, 1, false));  // no such report
    }

    TEST_CASE("a running job makes every device buffer off limits") {
        DeviceOutputTag tag;
        tag.remember({0, 5}, false);
        CHECK_FALSE(tag.current(1, 5, true));  // the worker may be writing or freeing it right now
        CHECK(tag.current(1, 5, false));        // and usable again when it ends without touching it
    }

    TEST_CASE("a result that arrives while another job already runs is never shown from the device") {
        DeviceOutputTag tag;
        tag.remember({0, 5}, true);
        CHECK_FALSE(tag.current(1, 5, false));
        tag.remember({0, 5}, false);
        CHECK(tag.current(1, 5, false));
        tag.forget();
        CHECK_FALSE(tag.current(1, 5, false));
    }
}
