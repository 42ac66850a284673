// GL timer queries in a small ring: a query is issued this frame and read, only once
// GL_QUERY_RESULT_AVAILABLE says so, a frame or more later, so no call here ever blocks.
// When the GPU falls a whole ring behind, a frame goes untimed rather than waiting.
// Verified by tests/test_gl_render.cpp, which times work on the offscreen context and sees a
// result arrive after a glFinish.
#include "gpu_timer.h"

#include "gl_objects.h"

namespace gpulab::app {

namespace {

bool result_ready(GLuint query) {
    GLint available = GL_FALSE;
    glGetQueryObjectiv(query, GL_QUERY_RESULT_AVAILABLE, &available);
    return available == GL_TRUE;
}

int64_t result_ns(GLuint query) {
    GLuint64 value = 0;
    glGetQueryObjectui64v(query, GL_QUERY_RESULT, &value);
    return static_cast<int64_t>(value);
}

}  // namespace

GpuFrameTimer::GpuFrameTimer() {
    glGenQueries(kRing, queries_.data());
    note_gl_objects(GlKind::Query, kRing);
}

GpuFrameTimer::~GpuFrameTimer() {
    if (active_) glEndQuery(GL_TIME_ELAPSED);
    glDeleteQueries(kRing, queries_.data());
    note_gl_objects(GlKind::Query, -kRing);
}

void GpuFrameTimer::collect() {
    // Oldest first (index_ is the slot used longest ago), so last_ns_ ends as the newest result.
    for (int k = 0; k < kRing; ++k) {
        int slot = (index_ + k) % kRing;
        if (!pending_[slot]) continue;
        if (!result_ready(queries_[slot])) break;  // later slots finish later still
        last_ns_ = result_ns(queries_[slot]);
        pending_[slot] = false;
    }
}

void GpuFrameTimer::begin_frame() {
    if (active_) return;  // a begin without an end: keep the query already running
    collect();
    if (pending_[index_]) return;  // GPU a full ring behind: skip timing this frame
    glBeginQuery(GL_TIME_ELAPSED, queries_[index_]);
    active_ = true;
}

void GpuFrameTimer::end_frame() {
    if (!active_) return;
    glEndQuery(GL_TIME_ELAPSED);
    pending_[index_] = true;
    index_ = (index_ + 1) % kRing;
    active_ = false;
}

GpuIntervalTimer::GpuIntervalTimer() {
    for (auto& pair : queries_) glGenQueries(2, pair.data());
    note_gl_objects(GlKind::Query, 2 * kRing);
}

GpuIntervalTimer::~GpuIntervalTimer() {
    for (auto& pair : queries_) glDeleteQueries(2, pair.data());
    note_gl_objects(GlKind::Query, -2 * kRing);
}

void GpuIntervalTimer::collect() {
    for (int k = 0; k < kRing; ++k) {
        int slot = (index_ + k) % kRing;
        if (!pending_[slot]) continue;
        // Commands complete in order: when the end stamp is there, the begin stamp is too.
        if (!result_ready(queries_[slot][1])) break;
        int64_t t0 = result_ns(queries_[slot][0]);
        int64_t t1 = result_ns(queries_[slot][1]);
        last_ns_ = t1 >= t0 ? t1 - t0 : 0;
        pending_[slot] = false;
        ++collected_;
    }
}

void GpuIntervalTimer::begin() {
    if (active_) return;
    collect();
    if (pending_[index_]) return;
    glQueryCounter(queries_[index_][0], GL_TIMESTAMP);
    active_ = true;
}

void GpuIntervalTimer::end() {
    if (!active_) return;
    glQueryCounter(queries_[index_][1], GL_TIMESTAMP);
    pending_[index_] = true;
    index_ = (index_ + 1) % kRing;
    active_ = false;
    ++issued_;
}

}  // namespace gpulab::app
