// See presenter_view_window.h.
#include "presenter_view_window.h"

#include <glad/gl.h>
#include <GLFW/glfw3.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>

#include "render/gl_util.h"

namespace gpulab::app {

GLFWmonitor* other_monitor(GLFWmonitor* slide) {
    int count = 0;
    GLFWmonitor** monitors = glfwGetMonitors(&count);
    for (int i = 0; i < count; ++i)
        if (monitors[i] != slide) return monitors[i];
    return nullptr;
}

bool PresenterViewWindow::open(GLFWmonitor* monitor, void* user, KeyCallback on_key, float scale, std::string& error) {
    if (window_) return true;
    GLFWwindow* previous = glfwGetCurrentContext();
    ImGuiContext* previous_imgui = ImGui::GetCurrentContext();
    int x = 0, y = 0, w = 1280, h = 720;
    // With a second screen the view fills it. On the slide's own screen (asked for with
    // --presenter-view on) it is a smaller window in the bottom-right corner kept above the
    // fullscreen slide: a window behind the slide could not be seen or reached (issue 41, item 9).
    const bool same_screen = monitor == nullptr;
    if (monitor) {
        glfwGetMonitorWorkarea(monitor, &x, &y, &w, &h);
    } else if (GLFWmonitor* primary = glfwGetPrimaryMonitor()) {
        int mx = 0, my = 0, mw = 0, mh = 0;
        glfwGetMonitorWorkarea(primary, &mx, &my, &mw, &mh);
        w = std::max(mw / 2, 320);
        h = std::max(mh / 2, 240);
        x = mx + std::max(mw - w, 0);
        y = my + std::max(mh - h, 0);
    }
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    glfwWindowHint(GLFW_FLOATING, same_screen ? GLFW_TRUE : GLFW_FALSE);
    window_ = glfwCreateWindow(std::max(w, 320), std::max(h, 240), "gpulab presenter view (only on this screen)",
                               nullptr, nullptr);
    glfwWindowHint(GLFW_FLOATING, GLFW_FALSE);
    glfwWindowHint(GLFW_VISIBLE, GLFW_TRUE);
    if (!window_) {
        error = "the presenter view window could not be opened";
        return false;
    }
    glfwSetWindowPos(window_, x, y);
    glfwShowWindow(window_);
    glfwSetWindowUserPointer(window_, user);
    glfwSetKeyCallback(window_, on_key);
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(0);  // the slide's swap already waits for vsync; two waits would halve its rate
    imgui_ = ImGui::CreateContext();
    ImGui::SetCurrentContext(imgui_);
    ImGui::GetIO().IniFilename = nullptr;
    ImGui_ImplGlfw_InitForOpenGL(window_, false);  // no callbacks: see the header
    ImGui_ImplOpenGL3_Init("#version 330");
    fonts_ = rebuild_fonts_and_style(scale, core::Theme::Normal);
    ImGui::SetCurrentContext(previous_imgui);
    glfwMakeContextCurrent(previous);
    return true;
}

void PresenterViewWindow::close() {
    if (!window_) return;
    GLFWwindow* previous = glfwGetCurrentContext();
    ImGuiContext* previous_imgui = ImGui::GetCurrentContext();
    glfwMakeContextCurrent(window_);
    ImGui::SetCurrentContext(imgui_);
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext(imgui_);
    imgui_ = nullptr;
    ImGui::SetCurrentContext(previous_imgui == imgui_ ? nullptr : previous_imgui);
    glfwMakeContextCurrent(previous == window_ ? nullptr : previous);
    glfwDestroyWindow(window_);
    window_ = nullptr;
}

void PresenterViewWindow::frame(const std::function<void(const Fonts&, ImVec2)>& draw, bool capture) {
    if (!window_) return;
    GLFWwindow* previous = glfwGetCurrentContext();
    ImGuiContext* previous_imgui = ImGui::GetCurrentContext();
    glfwMakeContextCurrent(window_);
    ImGui::SetCurrentContext(imgui_);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    draw(fonts_, ImGui::GetIO().DisplaySize);
    ImGui::Render();
    int fbw = 0, fbh = 0;
    glfwGetFramebufferSize(window_, &fbw, &fbh);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glViewport(0, 0, fbw, fbh);
    glClearColor(0.07f, 0.07f, 0.08f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    if (capture) {
        glReadBuffer(GL_BACK);
        captured_ = read_pixels_rgba(0, 0, fbw, fbh);
        captured_w_ = fbw;
        captured_h_ = fbh;
    }
    glfwSwapBuffers(window_);
    ImGui::SetCurrentContext(previous_imgui);
    glfwMakeContextCurrent(previous);
}

}  // namespace gpulab::app
