// Start-up pre-warm: a background thread that touches CUDA and cuDNN as soon as the GUI opens
// (probe, cold start, one tiny run on cuda-kernel and on cudnn), so the first "Run" in front of a
// class does not also pay for driver start-up, context creation, module loading and cuDNN's
// library load. It uses its own backend instances, not the measurement worker's, so it never
// shares a backend with a run. The status bar shows the outcome ("GPU warmed up in 312 ms" or
// "no GPU to warm up: <reason>"). Verified by the GUI tests (the line appears in the screenshots)
// and, on a GPU machine, by the first run's timing.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

namespace gpulab::app {

class GpuWarmup {
public:
    GpuWarmup();  // starts the thread
    ~GpuWarmup(); // waits for it: CUDA must not be torn down under a running call
    GpuWarmup(const GpuWarmup&) = delete;
    GpuWarmup& operator=(const GpuWarmup&) = delete;

    bool done() const { return done_; }
    bool ok() const { return ok_; }
    std::string status() const;

private:
    void work();

    mutable std::mutex mutex_;
    std::string status_ = "warming up the GPU in the background ...";
    std::atomic<bool> done_{false};
    std::atomic<bool> ok_{false};
    std::thread thread_;  // last: starts in the constructor after the members above exist
};

}  // namespace gpulab::app
