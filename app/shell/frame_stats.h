// A stats log for long runs (the classroom soak, scripts/soak.sh): with GPULAB_STATS_LOG=FILE set,
// the GUI appends one CSV line every few seconds with its frame times since the last line, split
// into quiet frames (no measurement running, no export written) and the rest, and the GL objects
// it holds (render/gl_objects.h). The soak reads the file to bound the longest quiet frame and to
// show the GL object counts stay flat. Unset: nothing is measured or written.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

namespace gpulab::app {

class FrameStatsLog {
public:
    // From GPULAB_STATS_LOG (and GPULAB_STATS_SECONDS, default 10); null when the variable is unset.
    // A file that cannot be opened is said once on stderr and the app runs on without the log.
    static std::unique_ptr<FrameStatsLog> from_environment();

    FrameStatsLog(std::FILE* file, double every_seconds);
    ~FrameStatsLog();
    FrameStatsLog(const FrameStatsLog&) = delete;
    FrameStatsLog& operator=(const FrameStatsLog&) = delete;

    // One finished frame: its wall time, and whether it was quiet. `now_s`: seconds since start.
    void frame(double now_s, double ms, bool quiet);

    // Writes the line for the frames since the last one now (also called by frame()).
    void write_line(double now_s);

    static const char* header();

private:

    std::FILE* file_;
    double every_s_;
    double next_s_;
    long frames_ = 0, quiet_frames_ = 0, quiet_over_100ms_ = 0;
    double quiet_max_ms_ = 0.0, other_max_ms_ = 0.0;
};

}  // namespace gpulab::app
