// run_gui: the GLFW window, OpenGL 3.3 core through glad, Dear ImGui 1.86, and the frame loop
// around Shell. With no display it explains and points at the headless export instead. The
// smoke test (tests/gui_tests.cmake) runs it under xvfb with --frames and --screenshot.
// glad first: it must be the only GL header, so GLFW is told not to include its own.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app_entry.h"
#include "export.h"
#include "fonts.h"
#include "gl_util.h"
#include "gpu_timer.h"
#include "shell.h"

namespace gpulab::app {

namespace {

std::string g_glfw_error;

struct WindowEvents {
    std::vector<std::string> dropped;
    struct Key {
        int key;
        bool repeat;  // held down: steps repeat, one-shot commands do not
    };
    std::vector<Key> keys;  // presses and repeats since the last frame, in order
    bool scale_changed = false;
};

void on_glfw_error(int code, const char* text) {
    g_glfw_error = "GLFW error " + std::to_string(code) + ": " + (text ? text : "");
}

void on_drop(GLFWwindow* window, int count, const char** paths) {
    auto* ev = static_cast<WindowEvents*>(glfwGetWindowUserPointer(window));
    for (int i = 0; i < count; ++i) ev->dropped.emplace_back(paths[i]);
}

// ImGui 1.86 samples key state once per frame, so a tap shorter than a frame (a quick finger,
// or a slow frame while both cores measure) is lost. Presses are queued here instead; ImGui's
// own key callback, installed after this one, calls it first.
void on_key(GLFWwindow* window, int key, int, int action, int) {
    if (action == GLFW_PRESS || action == GLFW_REPEAT)
        static_cast<WindowEvents*>(glfwGetWindowUserPointer(window))->keys.push_back({key, action == GLFW_REPEAT});
}

void on_content_scale(GLFWwindow* window, float, float) {
    static_cast<WindowEvents*>(glfwGetWindowUserPointer(window))->scale_changed = true;
}

void print_no_display(const std::string& why) {
    std::fprintf(stderr,
                 "gpulab: cannot open a window: %s\n"
                 "Without a display, measure and export headless instead:\n"
                 "  gpulab export --lesson elementwise-activations --out DIR\n",
                 why.c_str());
}

bool env_set(const char* name) {
    const char* v = std::getenv(name);
    return v && *v;
}

struct WindowedPlacement {
    int x = 100, y = 100, w = 1600, h = 900;
};

void set_fullscreen(GLFWwindow* window, bool on, WindowedPlacement& saved) {
    if (on) {
        glfwGetWindowPos(window, &saved.x, &saved.y);
        glfwGetWindowSize(window, &saved.w, &saved.h);
        GLFWmonitor* monitor = glfwGetPrimaryMonitor();
        const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
        if (mode) glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
        glfwSetWindowMonitor(window, nullptr, saved.x, saved.y, saved.w, saved.h, GLFW_DONT_CARE);
    }
}

}  // namespace

int run_gui(const GuiOptions& options) {
    if (!env_set("DISPLAY") && !env_set("WAYLAND_DISPLAY")) {
        print_no_display("no display (DISPLAY and WAYLAND_DISPLAY are not set)");
        return 1;
    }
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        print_no_display(g_glfw_error.empty() ? "glfwInit failed" : g_glfw_error);
        return 1;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    GLFWwindow* window = glfwCreateWindow(1600, 900, "gpulab: why deep learning runs on GPUs", nullptr, nullptr);
    if (!window) {
        print_no_display(g_glfw_error.empty() ? "glfwCreateWindow failed (OpenGL 3.3 core needed)" : g_glfw_error);
        glfwTerminate();
        return 1;
    }
    WindowEvents events;
    glfwSetWindowUserPointer(window, &events);
    glfwSetKeyCallback(window, on_key);
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::fprintf(stderr, "gpulab: cannot load OpenGL 3.3 functions through glad\n");
        glfwDestroyWindow(window);
        glfwTerminate();
        return 1;
    }

    auto shell = std::make_unique<Shell>();
    std::string error;
    if (!shell->init({options.lesson_dirs, options.lesson_id}, error)) {
        std::fprintf(stderr, "gpulab: %s\n", error.c_str());
        shell.reset();
        glfwDestroyWindow(window);
        glfwTerminate();
        return 1;
    }
    for (const auto& e : shell->lesson_errors()) std::fprintf(stderr, "gpulab: %s\n", e.to_string().c_str());

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout is computed from the window size every frame
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");
    // Registered after the backend so ImGui's own callbacks are not replaced.
    glfwSetDropCallback(window, on_drop);
    glfwSetWindowContentScaleCallback(window, on_content_scale);

    auto timer = std::make_unique<GpuFrameTimer>();
    WindowedPlacement placement;
    bool fullscreen = false;
    if (options.fullscreen) {
        set_fullscreen(window, true, placement);
        fullscreen = true;
    }
    float applied_scale = -1.0f;
    int frames = 0;
    std::chrono::steady_clock::time_point last_frame_deadline{};
    bool waiting_for_run = false;

    while (!glfwWindowShouldClose(window)) {
        glfwPollEvents();
        if (!events.dropped.empty()) {
            shell->drop_files(events.dropped);
            events.dropped.clear();
        }
        float cx = 1.0f, cy = 1.0f;
        glfwGetWindowContentScale(window, &cx, &cy);
        shell->set_content_scale(cx);
        const float scale = cx * shell->user_scale();
        if (scale != applied_scale || events.scale_changed) {
            // Outside NewFrame/Render: the atlas must not change while a frame uses it.
            shell->set_fonts(rebuild_fonts_and_style(scale));
            applied_scale = scale;
            events.scale_changed = false;
        }

        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        bool toggle = false;
        for (const WindowEvents::Key& k : events.keys) {
            // Typing in a text field must not step the lesson or start runs.
            const bool typing = io.WantTextInput;
            if (!typing && (k.key == GLFW_KEY_RIGHT || k.key == GLFW_KEY_PAGE_DOWN)) shell->next_step();
            if (!typing && (k.key == GLFW_KEY_LEFT || k.key == GLFW_KEY_PAGE_UP)) shell->prev_step();
            if (k.repeat) continue;
            if (!typing && k.key == GLFW_KEY_R) shell->request_run();
            if (k.key == GLFW_KEY_F12) shell->request_export();
            if (k.key == GLFW_KEY_F11 || (fullscreen && k.key == GLFW_KEY_ESCAPE)) toggle = !toggle;
        }
        events.keys.clear();

        shell->update(io.DeltaTime);
        FrameContext ctx;
        ctx.size = io.DisplaySize;
        ctx.cpu_frame_ms = io.Framerate > 0.0f ? 1000.0f / io.Framerate : 0.0f;
        ctx.gpu_frame_ns = timer->last_ns();
        ctx.fullscreen = fullscreen;
        shell->frame(ctx);
        ImGui::Render();

        int fbw = 0, fbh = 0;
        glfwGetFramebufferSize(window, &fbw, &fbh);
        timer->begin_frame();
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glViewport(0, 0, fbw, fbh);
        glClearColor(0.07f, 0.07f, 0.08f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        timer->end_frame();

        ++frames;
        bool last = false;
        if (options.max_frames > 0 && frames >= options.max_frames) {
            // A smoke test's screenshot should show a finished measurement; wait for it, boundedly.
            if (!waiting_for_run) {
                waiting_for_run = true;
                last_frame_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            }
            last = !shell->busy() || std::chrono::steady_clock::now() > last_frame_deadline;
        }
        const bool want_export = shell->take_export_request();
        if (want_export || (last && !options.screenshot_path.empty())) {
            glReadBuffer(GL_BACK);
            std::vector<uint8_t> pixels = read_pixels_rgba(0, 0, fbw, fbh);
            if (want_export) {
                ExportResult r = shell->export_now(pixels, fbw, fbh);
                std::printf("gpulab: %s\n", r.message.c_str());
                for (const auto& f : r.files) std::printf("  %s\n", f.c_str());
                std::fflush(stdout);  // shows at once when stdout is a file or a pipe
            }
            if (last && !options.screenshot_path.empty()) {
                std::string werr;
                if (!write_png(options.screenshot_path, pixels, fbw, fbh, werr)) {
                    std::fprintf(stderr, "gpulab: %s\n", werr.c_str());
                    frames = -1;
                }
            }
        }
        glfwSwapBuffers(window);
        if (shell->take_fullscreen_toggle()) toggle = true;
        if (toggle) {
            fullscreen = !fullscreen;
            set_fullscreen(window, fullscreen, placement);
        }
        if (last) break;
    }

    // GL objects (textures, timer queries, the renderer) go while the context still exists.
    shell.reset();
    timer.reset();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return frames < 0 ? 1 : 0;
}

}  // namespace gpulab::app
