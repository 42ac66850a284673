// When the window measures a step again by itself (core/measure/quiet_retry.h, issue 41 item 6):
// after a busy run, once other programs have been quiet for two seconds; never after a quiet run,
// a long run, or twice for one step; a busy spell restarts the quiet clock.
#include <doctest/doctest.h>

#include <cstdint>

#include "measure/quiet_retry.h"

using namespace gpulab::core;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

RunQuality run(double others_share, double seconds) {
    RunQuality q;
    q.known = true;
    q.others_share = others_share;
    q.cpus = 2;
    q.seconds = seconds;
    return q;
}

// Samples 0.5 s apart on 2 CPUs where other programs use `share` of the machine.
struct Machine {
    CpuSample s{true, 0, 0, 0};
    CpuSample next(double share) {
        s.wall_ns += kSecond / 2;
        s.system_busy_ns += static_cast<std::int64_t>(share * 2 * (kSecond / 2));
        return s;
    }
};

// Feeds samples at `share` for `seconds`; true when a re-run was asked for.
bool feed(QuietRetry& r, Machine& m, double share, double seconds) {
    bool asked = false;
    for (int i = 0; i < static_cast<int>(seconds * 2); ++i) asked = r.should_rerun(m.next(share), 2) || asked;
    return asked;
}

}  // namespace

TEST_CASE("a busy run is measured again once the machine has been quiet for two seconds - once per step") {
    QuietRetry r;
    Machine m;
    r.run_finished("conv step 3", run(0.55, 2.0));
    REQUIRE(r.watching());
    CHECK_FALSE(feed(r, m, 0.60, 5.0));  // still busy: waits
    CHECK_FALSE(feed(r, m, 0.05, 1.0));  // quiet, but not for long enough
    CHECK_FALSE(feed(r, m, 0.50, 1.0));  // busy again: the quiet clock restarts
    CHECK_FALSE(feed(r, m, 0.05, 1.5));
    CHECK(feed(r, m, 0.05, 1.0));        // two quiet seconds in a row
    CHECK_FALSE(r.watching());
    // The automatic run was busy too: not repeated again for this step.
    r.run_finished("conv step 3", run(0.40, 2.0));
    CHECK_FALSE(r.watching());
    CHECK_FALSE(feed(r, m, 0.0, 5.0));
    // Another step starts afresh.
    r.run_finished("conv step 4", run(0.40, 2.0));
    CHECK(r.watching());
}

TEST_CASE("a quiet run - a long run or an unknown machine is never measured again unasked") {
    QuietRetry r;
    Machine m;
    r.run_finished("a", run(0.10, 2.0));
    CHECK_FALSE(r.watching());
    r.run_finished("b", run(0.60, 45.0));  // a minute of training
    CHECK_FALSE(r.watching());
    RunQuality unknown;  // /proc/stat unreadable
    unknown.seconds = 2.0;
    r.run_finished("c", unknown);
    CHECK_FALSE(r.watching());
    CHECK_FALSE(feed(r, m, 0.0, 5.0));
    r.run_finished("d", run(0.60, 2.0));
    r.stop();  // the student moved on
    CHECK_FALSE(feed(r, m, 0.0, 5.0));
}
