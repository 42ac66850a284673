// `gpulab bench --suite stop` (issue 38): how soon a run ends after the window leaves its step.
// The activations lesson's "Make it big" run (ReLU over 2^24 floats) and the slider's largest size
// (2^26), on every backend the window uses and with the window's measurement settings, each run
// once whole to learn its length, then started again in a worker thread as the job runner starts
// it and stopped by the same request (core/runtime/cancel.h) at moments spread evenly over that
// length, so every stage is hit: input, warm-up, samples, the simulated kernel, the copy probe.
// The delay is from the request to the run's return. A speed, so a benchmark and not a test (the
// tests count the work done after a request instead: tests/test_cancel.cpp). Not part of
// `--suite all`. Figures in docs/benchmarks.md.
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli_bench_stop.h"
#include "json_out.h"
#include "measure/clock.h"
#include "measure/format.h"
#include "measure/stats.h"
#include "runtime/cancel.h"
#include "runtime/thread_priority.h"
#include "shell/backend_set.h"
#include "workloads/activation_workload.h"

namespace gpulab::app {

namespace {

// The window's settings for a step's run (ActivationView::measure_config, not live, not quick).
core::MeasureConfig window_step_config() {
    core::MeasureConfig c;
    c.min_samples = 7;
    c.time_budget_ns = 300'000'000;
    return c;
}

struct StopTrial {
    int64_t asked_after_ns = 0;  // from the start of the run
    std::string stage;           // the stage the run had reported when asked
    int64_t delay_ns = -1;       // request -> return; -1: it had finished before the request
    bool cancelled = false;      // the run ended with "cancelled"
};

// One run in a worker thread, stopped `after_ns` after it starts (never, for after_ns < 0).
StopTrial run_and_stop(const core::ActivationParams& p, const std::vector<core::Backend*>& backends,
                       int64_t after_ns) {
    std::mutex mutex;
    std::string stage = "starting";
    int64_t done_ns = 0;
    std::string error;
    core::set_cancel_requested(false);
    const int64_t start = core::now_ns();
    std::thread worker([&] {
        cpu::set_this_thread_nice(cpu::kMeasurementNice);  // as the window's job runner does
        core::ActivationRun run = core::run_activation(p, backends, window_step_config(), [&](float, std::string_view s) {
            std::lock_guard<std::mutex> lock(mutex);
            stage = std::string(s);
            return !core::cancel_requested();
        });
        const int64_t t = core::now_ns();  // before the run's buffers are freed, as the window measures
        std::lock_guard<std::mutex> lock(mutex);
        done_ns = t;
        error = run.ok ? "" : run.error;
    });
    StopTrial trial;
    if (after_ns >= 0) {
        std::this_thread::sleep_for(std::chrono::nanoseconds(after_ns));
        int64_t asked = 0;
        {
            std::lock_guard<std::mutex> lock(mutex);  // the stage and the request at one moment
            trial.stage = stage;
            asked = core::now_ns();
            core::set_cancel_requested(true);
        }
        worker.join();
        trial.asked_after_ns = asked - start;
        trial.cancelled = error == "cancelled";
        if (done_ns > asked) trial.delay_ns = done_ns - asked;
    } else {
        worker.join();
        trial.delay_ns = done_ns - start;  // the whole run's length
        trial.stage = error.empty() ? "done" : error;
    }
    core::set_cancel_requested(false);
    return trial;
}

}  // namespace

int bench_stop(const BenchOptions& o, bool& first) {
    core::BackendList all = make_all_backends();
    std::vector<core::Backend*> backends;
    for (const auto& b : all) backends.push_back(b.get());
    const std::vector<long long> sizes = o.quick ? std::vector<long long>{1LL << 16} : std::vector<long long>{1LL << 24, 1LL << 26};
    const int moments = o.quick ? 2 : 10;
    int failures = 0;
    if (!o.json) {
        std::printf("\nStopping a run (the window leaving its step): ReLU on every backend with the window's settings, "
                    "stopped at %d moments spread over the run; delay from the request to the run's return\n",
                    moments);
    }
    for (long long n : sizes) {
        core::ActivationParams p;
        p.activation = core::Activation::Relu;
        p.elements = n;
        bench_progress("bench: stop, a whole run over %s elements...\n", core::format_pow2(n).c_str());
        const StopTrial whole = run_and_stop(p, backends, -1);
        if (whole.stage != "done") {
            std::fprintf(stderr, "gpulab: stop bench at %s elements: %s\n", core::format_pow2(n).c_str(),
                         whole.stage.c_str());
            ++failures;
            continue;
        }
        if (!o.json)
            std::printf("  %s elements, whole run %s\n  %10s  %-44s %10s\n", core::format_pow2(n).c_str(),
                        core::format_duration(whole.delay_ns).c_str(), "asked at", "stage when asked", "stopped in");
        std::vector<int64_t> delays;
        std::string slowest_stage;
        int64_t slowest = -1;
        for (int i = 0; i < moments; ++i) {
            const auto at = static_cast<int64_t>(static_cast<double>(whole.delay_ns) * (i + 0.5) / moments);
            bench_progress("bench: stop at %s of %s...\n", core::format_duration(at).c_str(),
                           core::format_duration(whole.delay_ns).c_str());
            const StopTrial t = run_and_stop(p, backends, at);
            // It finished first (a run is shorter when the machine is quieter), or was past its last
            // check: nothing to stop.
            if (t.delay_ns < 0 || t.stage == "done") continue;
            delays.push_back(t.delay_ns);
            if (t.delay_ns > slowest) slowest = t.delay_ns, slowest_stage = t.stage;
            if (o.json) {
                json_record(first, "\"op\": \"stop\", \"elements\": " + std::to_string(n) +
                                       ", \"asked_after_s\": " + json_number(static_cast<double>(t.asked_after_ns) * 1e-9) +
                                       ", \"stage\": " + json_string(t.stage) +
                                       ", \"stop_ms\": " + json_number(static_cast<double>(t.delay_ns) * 1e-6) +
                                       ", \"cancelled\": " + (t.cancelled ? "true" : "false"));
            } else {
                std::printf("  %10s  %-44s %10s%s\n", core::format_duration(t.asked_after_ns).c_str(), t.stage.c_str(),
                            core::format_duration(t.delay_ns).c_str(), t.cancelled ? "" : "  (ran to its end)");
            }
        }
        const core::Stats s = core::summarize(delays);
        if (!o.json && s.samples > 0)
            std::printf("  stopped in: median %s, max %s (%s), %d stops\n", core::format_duration(s.median_ns).c_str(),
                        core::format_duration(s.max_ns).c_str(), slowest_stage.c_str(), s.samples);
    }
    return failures;
}

}  // namespace gpulab::app
