// The presenter view: a second window, on the laptop's own screen, that only the instructor sees
// while the projector shows the slide. It has its own GL context and its own ImGui context (ImGui
// 1.86 has one window per context); it draws, it takes keys (the same queue as the slide, so the
// laptop keyboard steps the lesson whichever window has focus) and nothing else: no mouse widgets,
// so ImGui's GLFW callbacks are not installed on it and cannot feed the slide's context.
// Checked on Xvfb by tests/presenter_tests.cmake (its screenshot is looked at) with --presenter-view on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <imgui.h>

#include "widgets/fonts.h"

struct GLFWwindow;
struct GLFWmonitor;

namespace gpulab::app {

class PresenterViewWindow {
public:
    using KeyCallback = void (*)(GLFWwindow*, int, int, int, int);
    PresenterViewWindow() = default;
    ~PresenterViewWindow() { close(); }
    PresenterViewWindow(const PresenterViewWindow&) = delete;
    PresenterViewWindow& operator=(const PresenterViewWindow&) = delete;

    // Opens on `monitor` (maximised in its work area), or as a 1280x720 window when it is null.
    // `user` and `on_key` are the slide window's, so keys land in one queue. False with `error`
    // when the window or its context cannot be made; the slide carries on without it.
    bool open(GLFWmonitor* monitor, void* user, KeyCallback on_key, float scale, std::string& error);
    void close();
    bool is_open() const { return window_ != nullptr; }

    // One frame: `draw` runs inside this window's ImGui context with its fonts and size. The
    // caller's GL and ImGui contexts are current again afterwards. `capture`: keep the frame's
    // pixels for captured() (the tests' screenshot).
    void frame(const std::function<void(const Fonts&, ImVec2)>& draw, bool capture = false);
    const std::vector<uint8_t>& captured(int& width, int& height) const {
        width = captured_w_;
        height = captured_h_;
        return captured_;
    }

private:
    GLFWwindow* window_ = nullptr;
    ImGuiContext* imgui_ = nullptr;
    Fonts fonts_;
    std::vector<uint8_t> captured_;
    int captured_w_ = 0, captured_h_ = 0;
};

// The monitor for the presenter view: the first connected one that is not `slide`; null when the
// slide's is the only one.
GLFWmonitor* other_monitor(GLFWmonitor* slide);

}  // namespace gpulab::app
