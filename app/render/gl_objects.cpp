// Counters for app/render/gl_objects.h. Atomic although GL calls happen on the main thread only:
// the stats log may be read from a test on another thread, and the cost is nothing next to a GL call.
#include "gl_objects.h"

#include <array>
#include <atomic>

namespace gpulab::app {

namespace {

constexpr int kKinds = static_cast<int>(GlKind::Count);
std::array<std::atomic<long>, kKinds> g_alive{};
constexpr const char* kNames[kKinds] = {"textures", "buffers", "vaos", "programs", "shaders", "framebuffers", "queries"};

}  // namespace

void note_gl_objects(GlKind kind, int n) { g_alive[static_cast<int>(kind)] += n; }

long gl_objects_alive(GlKind kind) { return g_alive[static_cast<int>(kind)].load(); }

std::string gl_objects_summary() {
    std::string s;
    for (int k = 0; k < kKinds; ++k) {
        if (k) s += ' ';
        s += std::string(kNames[k]) + "=" + std::to_string(g_alive[k].load());
    }
    return s;
}

}  // namespace gpulab::app
