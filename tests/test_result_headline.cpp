// The busy run's numbers kept beside a quiet re-measurement (app/views/result_headline.h): the
// medians of the backends that ran and are timed here, never a simulated time.
#include <doctest/doctest.h>

#include "views/result_headline.h"

using namespace gpulab;

namespace {
core::BackendReport report(const char* name, core::BackendKind kind, bool ran, std::int64_t median_ns) {
    core::BackendReport r;
    r.backend = name;
    r.kind = kind;
    r.ran = ran;
    r.total.samples = ran ? 10 : 0;
    r.total.median_ns = median_ns;
    return r;
}
}  // namespace

TEST_CASE("the busy run's headline names the timed backends' medians only") {
    const std::vector<core::BackendReport> reports = {
        report("cpu-scalar", core::BackendKind::Cpu, true, 1'670'000),
        report("cpu-parallel", core::BackendKind::Cpu, true, 389'000),
        report("cuda-kernel", core::BackendKind::Gpu, false, 0),
        report("cuda-sim", core::BackendKind::Simulated, true, 82'400'000),
    };
    CHECK(app::medians_headline(reports) == "cpu-scalar 1.67 ms, cpu-parallel 389 us");
    CHECK(app::medians_headline({}).empty());
}
