// An OpenGL 3.3 core context with no window and no display, for `gpulab export` and headless
// tests: EGL with the surfaceless platform on Mesa, or the EGL device platform on NVIDIA (which
// also lets CUDA-GL interop run headless). Loads GL through glad. The order of platforms tried,
// and GPULAB_EGL_PLATFORM=device|surfaceless|default to force one, are in offscreen_context.cpp.
#pragma once

#include <memory>
#include <string>

namespace gpulab::app {

class OffscreenContext {
public:
    // Creates the context and makes it current on this thread. nullptr with `why` set when no
    // context can be made: one line naming each platform tried, the step that failed and the EGL error.
    static std::unique_ptr<OffscreenContext> create(std::string& why);
    virtual ~OffscreenContext() = default;
    virtual void make_current() = 0;
    virtual std::string description() const = 0;  // "EGL surfaceless (Mesa llvmpipe, OpenGL 4.5)"
};

}  // namespace gpulab::app
