// The measurement worker: see jobs.h. The worker only ever touches core types; everything the
// job produces is handed to the main thread as a completion.
#include "jobs.h"

#include <thread>
#include <utility>

#include "runtime/cancel.h"
#include "measure/clock.h"
#include "runtime/thread_priority.h"

namespace gpulab::app {

JobRunner::JobRunner() : thread_([this] { loop(); }) {}

JobRunner::~JobRunner() { stop(); }

void JobRunner::stop() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
        pending_ = nullptr;
    }
    cancel_requested_ = true;  // a running measurement stops at its next progress report
    core::set_cancel_requested(true);
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void JobRunner::cancel() {
    if (busy_ && !cancel_requested_) {
        ++cancels_;
        cancel_at_ns_ = core::now_ns();
        std::lock_guard lock(mutex_);
        cancel_stage_ = stage_;
    }
    cancel_requested_ = true;
    core::set_cancel_requested(true);  // for loops with no progress callback (core/runtime/cancel.h)
}

int64_t JobRunner::take_cancel_latency_ns() {
    std::lock_guard lock(mutex_);
    if (has_finished_) return -1;  // its completion has not run yet
    const int64_t v = cancel_latency_ns_;
    cancel_latency_ns_ = -1;
    return v;
}

bool JobRunner::submit(std::string label, Work work) {
    std::lock_guard lock(mutex_);
    if (quit_ || busy_ || pending_) return false;
    pending_ = std::move(work);
    label_ = std::move(label);
    stage_ = "starting";
    progress_ = 0.0f;
    cancel_requested_ = false;
    core::set_cancel_requested(false);
    busy_ = true;
    ++submitted_;
    wake_.notify_all();
    return true;
}

void JobRunner::poll() {
    std::function<void()> done;
    {
        std::lock_guard lock(mutex_);
        if (!has_finished_) return;
        done = std::move(finished_);
        finished_ = nullptr;
        has_finished_ = false;
    }
    // busy_ drops before the completion runs, so a completion (or the live loop right after
    // poll) can submit the next run straight away.
    busy_ = false;
    if (done) done();
}

std::string JobRunner::cancel_stage() const {
    std::lock_guard lock(mutex_);
    return cancel_stage_;
}

std::string JobRunner::stage() const {
    std::lock_guard lock(mutex_);
    return stage_;
}

std::string JobRunner::label() const {
    std::lock_guard lock(mutex_);
    return label_;
}

void JobRunner::loop() {
    int nice_set = 0;
    for (;;) {
        Work work;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return quit_ || pending_; });
            if (quit_) return;
            work = std::move(pending_);
            pending_ = nullptr;
        }
        if (const int nice = worker_nice_.load(); nice != nice_set) {
            cpu::set_this_thread_nice(nice);  // threads this one creates (oneDNN's) inherit it
            nice_set = nice;
        }
        core::ProgressFn progress = [this](float fraction, std::string_view stage) {
            progress_ = fraction;
            {
                std::lock_guard lock(mutex_);
                stage_ = std::string(stage);
            }
            return !cancel_requested_.load();
        };
        frames_ = 0;
        const core::CpuSample before = core::sample_cpu();
        std::function<void()> done = work(progress);
        core::set_cancel_requested(false);  // the stop was for this job only
        core::RunQuality quality = core::quality_between(before, core::sample_cpu(), static_cast<int>(std::thread::hardware_concurrency()));
        quality.frames_drawn = frames_.load();
        core::set_last_run_quality(quality);
        std::lock_guard lock(mutex_);
        cancel_latency_ns_ = cancel_requested_ && cancel_at_ns_ > 0 ? core::now_ns() - cancel_at_ns_.load() : -1;
        cancel_at_ns_ = 0;
        finished_ = std::move(done);
        has_finished_ = true;
    }
}

}  // namespace gpulab::app
