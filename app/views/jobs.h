// One worker thread for measurements, so a run never freezes the UI (Tracy-style run queue).
// The job runs off the main thread and returns a completion that the main thread executes in
// poll(), which is where GL and interop calls belong. Progress and cancel go through the core
// ProgressFn. Verified by the GUI smoke test and headless export (tests/gui_tests.cmake).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "measure/run_quality.h"
#include "workloads/activation_workload.h"

namespace gpulab::app {

class JobRunner {
public:
    // Runs on the worker; returns what the main thread should do with the result.
    using Work = std::function<std::function<void()>(const core::ProgressFn& progress)>;

    JobRunner();
    ~JobRunner();
    JobRunner(const JobRunner&) = delete;
    JobRunner& operator=(const JobRunner&) = delete;

    // False (nothing queued) when a job is already running: one measurement at a time keeps
    // the timings honest, since two runs would compete for the same two cores.
    bool submit(std::string label, Work work);
    // Cancels the running job, drops a pending one and joins the worker; nothing runs afterwards and
    // submit() is refused. The owner calls it before anything a job may touch goes away (the shell,
    // before its views: a job captures its view); the destructor calls it too. Idempotent.
    void stop();
    // Main thread, once per frame: runs the completion of a finished job.
    void poll();
    void cancel();
    // How long the last cancelled job took to stop after cancel(), once, on the main thread after
    // poll() ran its completion; -1 when there is nothing new. The shell prints it; the GUI tests
    // check that a stop reaches the run (tests/gui_tests.cmake), `gpulab bench --suite stop` times it.
    int64_t take_cancel_latency_ns();
    // What the job was doing when the last cancel() came ("measuring cpu-scalar (3 samples)").
    std::string cancel_stage() const;

    // The worker runs each next job at this nice value (core/runtime/thread_priority.h): the window asks for
    // cpu::kMeasurementNice (core/runtime/thread_priority.h says why it is 0 today).
    void set_worker_nice(int nice) { worker_nice_ = nice; }

    // Main thread, once per frame drawn: counted into the running job's quality.
    void count_frame() {
        if (busy_) ++frames_;
    }

    bool busy() const { return busy_; }
    bool cancelling() const { return cancel_requested_; }
    // Jobs accepted since the start (main thread): a step shown from the results cache adds none,
    // which the presenter summary's "runs=" lets the GUI tests see.
    int submitted() const { return submitted_; }
    // Running jobs cancelled since the start (main thread), whoever asked: the shell's walk through
    // every step stops when one of its runs is cancelled.
    int cancels() const { return cancels_; }
    float progress() const { return progress_; }
    std::string stage() const;
    std::string label() const;

private:
    void loop();

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    Work pending_;
    std::function<void()> finished_;
    bool has_finished_ = false;
    bool quit_ = false;
    std::string stage_, label_;
    std::atomic<bool> busy_{false};
    std::atomic<bool> cancel_requested_{false};
    std::atomic<float> progress_{0.0f};
    std::atomic<int> worker_nice_{0};
    std::atomic<int> frames_{0};
    std::atomic<int64_t> cancel_at_ns_{0};
    int64_t cancel_latency_ns_ = -1;  // under mutex_
    int submitted_ = 0;               // written and read on the main thread only
    int cancels_ = 0;                 // the same
    std::string cancel_stage_;        // under mutex_: what the job was doing when cancel() came
    // Last: the thread starts in the constructor and must find every member above initialised.
    std::thread thread_;
};

}  // namespace gpulab::app
