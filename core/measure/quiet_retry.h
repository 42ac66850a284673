// When to measure a step again because its run shared the machine (issue 41, item 6): on a busy
// laptop a run that other programs slowed can contradict the lesson ("at once" slower than "one
// after another"), and the student rarely knows to press R later. After such a run (RunQuality::
// busy) the window watches the machine, and once other programs have used little of it for a
// couple of seconds it measures the step once more by itself. Only short runs (a minute of
// training is not repeated unasked), at most once per step and result, never during a walk over
// every step or live mode (the shell decides those). Plain C++ fed with CPU samples, so the rule is
// tested without a busy machine (tests/test_quiet_retry.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "run_quality.h"

namespace gpulab::core {

class QuietRetry {
public:
    struct Settings {
        double quiet_share = 0.15;                  // other programs' share of the CPUs that counts as quiet
        std::int64_t quiet_for_ns = 2'000'000'000;  // quiet this long before measuring again
        std::int64_t longest_run_ns = 10'000'000'000;  // longer runs are not repeated unasked
        std::int64_t sample_every_ns = 500'000'000;    // /proc/stat counts in 10 ms ticks
        int retries_per_step = 1;
    };
    QuietRetry() = default;
    explicit QuietRetry(Settings s) : s_(s) {}

    // A run of the step `step` (any text naming it) finished with quality `q`.
    void run_finished(const std::string& step, const RunQuality& q);
    // The step changed, live mode began, a walk started: nothing to repeat.
    void stop() { watching_ = false; }
    bool watching() const { return watching_; }

    // Called with a fresh sample while no run is going: true (once) when the step should be measured
    // again now. `cpus`: this machine's.
    bool should_rerun(const CpuSample& now, int cpus);

private:
    Settings s_;
    bool watching_ = false;
    std::string step_;
    int retries_ = 0;          // automatic runs of step_ so far
    CpuSample last_;           // the last sample judged from
    std::int64_t quiet_since_ns_ = -1;
};

}  // namespace gpulab::core
