// GPU time from GL timer queries, read a few frames late so the CPU never waits for the GPU.
// io.Framerate is a CPU estimate; this is what the GPU itself spent.
//
// Two timers: GpuFrameTimer brackets a whole frame with GL_TIME_ELAPSED; GpuIntervalTimer
// brackets a piece of work with two GL_TIMESTAMP counters. Only one GL_TIME_ELAPSED query may be
// active at a time, so work timed inside a timed frame (a tensor upload) must use timestamps.
#pragma once

#include <glad/gl.h>

#include <array>
#include <cstdint>

namespace gpulab::app {

// Needs a current GL context from construction to destruction.
class GpuFrameTimer {
public:
    GpuFrameTimer();
    ~GpuFrameTimer();
    GpuFrameTimer(const GpuFrameTimer&) = delete;
    GpuFrameTimer& operator=(const GpuFrameTimer&) = delete;
    void begin_frame();  // collects finished results, then starts a query unless the ring is full
    void end_frame();
    int64_t last_ns() const { return last_ns_; }  // -1 until the first result arrives

private:
    void collect();
    static constexpr int kRing = 4;
    std::array<GLuint, kRing> queries_{};
    std::array<bool, kRing> pending_{};
    int index_ = 0;
    bool active_ = false;
    int64_t last_ns_ = -1;
};

// Same ring idea with a pair of timestamps per interval; may be nested in a GpuFrameTimer frame.
class GpuIntervalTimer {
public:
    GpuIntervalTimer();
    ~GpuIntervalTimer();
    GpuIntervalTimer(const GpuIntervalTimer&) = delete;
    GpuIntervalTimer& operator=(const GpuIntervalTimer&) = delete;
    void begin();
    void end();
    void collect();  // non-blocking: picks up whatever results the GPU has finished
    int64_t last_ns() const { return last_ns_; }
    // Intervals ended and results collected so far: once collected() reaches the issued() seen
    // right after an end(), last_ns() is that interval's time and no longer an older one's.
    int64_t issued() const { return issued_; }
    int64_t collected() const { return collected_; }

private:
    static constexpr int kRing = 4;
    std::array<std::array<GLuint, 2>, kRing> queries_{};
    std::array<bool, kRing> pending_{};
    int index_ = 0;
    bool active_ = false;
    int64_t last_ns_ = -1;
    int64_t issued_ = 0, collected_ = 0;
};

}  // namespace gpulab::app
