// See frame_stats.h. Lines are flushed as written so the soak can read the file while the app runs
// and still has every line up to a crash.
#include "frame_stats.h"

#include <algorithm>
#include <cstdlib>

#include "render/gl_objects.h"

namespace gpulab::app {

std::unique_ptr<FrameStatsLog> FrameStatsLog::from_environment() {
    const char* path = std::getenv("GPULAB_STATS_LOG");
    if (!path || !*path) return nullptr;
    double every = 10.0;
    if (const char* s = std::getenv("GPULAB_STATS_SECONDS")) {
        const double v = std::atof(s);
        if (v > 0.0) every = v;
    }
    std::FILE* f = std::fopen(path, "w");
    if (!f) {
        std::fprintf(stderr, "gpulab: GPULAB_STATS_LOG: cannot write %s; running without the stats log\n", path);
        return nullptr;
    }
    return std::make_unique<FrameStatsLog>(f, every);
}

FrameStatsLog::FrameStatsLog(std::FILE* file, double every_seconds)
    : file_(file), every_s_(every_seconds), next_s_(every_seconds) {
    std::fprintf(file_, "%s\n", header());
    std::fflush(file_);
}

FrameStatsLog::~FrameStatsLog() { std::fclose(file_); }

const char* FrameStatsLog::header() {
    return "seconds,frames,quiet_frames,quiet_max_ms,quiet_over_100ms,other_max_ms,"
           "textures,buffers,vaos,programs,shaders,framebuffers,queries";
}

void FrameStatsLog::frame(double now_s, double ms, bool quiet) {
    ++frames_;
    if (quiet) {
        ++quiet_frames_;
        quiet_max_ms_ = std::max(quiet_max_ms_, ms);
        if (ms > 100.0) ++quiet_over_100ms_;
    } else {
        other_max_ms_ = std::max(other_max_ms_, ms);
    }
    if (now_s >= next_s_) write_line(now_s);
}

void FrameStatsLog::write_line(double now_s) {
    std::fprintf(file_, "%.1f,%ld,%ld,%.1f,%ld,%.1f", now_s, frames_, quiet_frames_, quiet_max_ms_,
                 quiet_over_100ms_, other_max_ms_);
    for (GlKind k : {GlKind::Texture, GlKind::Buffer, GlKind::VertexArray, GlKind::Program, GlKind::Shader,
                     GlKind::Framebuffer, GlKind::Query})
        std::fprintf(file_, ",%ld", gl_objects_alive(k));
    std::fprintf(file_, "\n");
    std::fflush(file_);
    frames_ = quiet_frames_ = quiet_over_100ms_ = 0;
    quiet_max_ms_ = other_max_ms_ = 0.0;
    while (next_s_ <= now_s) next_s_ += every_s_;
}

}  // namespace gpulab::app
