// run_gui: the GLFW window, OpenGL 3.3 core through glad, Dear ImGui 1.86, and the frame loop
// around Shell. With no display it explains and points at the headless export instead. Keys go
// through one queue (real presses and the test option --script-keys alike) into the presenter's
// state machine; presenter mode goes fullscreen on the chosen monitor. A background thread warms
// the GPU up at start. The smoke tests (tests/gui_tests.cmake, tests/presenter_tests.cmake) run it
// under xvfb with --frames and --screenshot.
// glad first: it must be the only GL header, so GLFW is told not to include its own.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "app_entry.h"
#include "views/export.h"
#include "views/stored_results.h"
#include "widgets/fonts.h"
#include "render/gl_util.h"
#include "render/gpu_timer.h"
#include "lesson/presenter.h"
#include "frame_stats.h"
#include "presenter_view_window.h"
#include "presenter_warmup.h"
#include "shell.h"
#include "startup_error_window.h"

namespace gpulab::app {

namespace {

std::string g_glfw_error;

// SIGTERM or Ctrl-C closes the window as its close button would: running jobs are cancelled, GL
// objects freed and the stats log gets its last line (the soak ends the app this way).
volatile std::sig_atomic_t g_stop_requested = 0;
void on_stop_signal(int) { g_stop_requested = 1; }

struct WindowEvents {
    std::vector<std::string> dropped;
    struct Key {
        int key;
        bool repeat;  // held down: steps repeat, one-shot commands do not
        int mods = 0; // GLFW_MOD_SHIFT tells '?' from '/'
    };
    std::vector<Key> keys;  // presses and repeats since the last frame, in order
    bool scale_changed = false;
    bool input = false;     // a key or mouse button since the wait began (wait_for_input_or)
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
void on_key(GLFWwindow* window, int key, int, int action, int mods) {
    auto* ev = static_cast<WindowEvents*>(glfwGetWindowUserPointer(window));
    ev->input = true;
    if (action == GLFW_PRESS || action == GLFW_REPEAT) ev->keys.push_back({key, action == GLFW_REPEAT, mods});
}

// Only to wake a waiting frame (ImGui's own callback, chained after this one, records the click).
void on_mouse_button(GLFWwindow* window, int, int, int) {
    static_cast<WindowEvents*>(glfwGetWindowUserPointer(window))->input = true;
}

// The presenter's keys on a GLFW keyboard. `shift` = 1: only with Shift, 0: either way. The first
// row for a key is also what --script-keys injects.
struct KeyBinding {
    int glfw_key;
    int shift;
    core::PresenterKey key;
};
constexpr KeyBinding kKeyBindings[] = {
    {GLFW_KEY_RIGHT, 0, core::PresenterKey::Right},       {GLFW_KEY_LEFT, 0, core::PresenterKey::Left},
    {GLFW_KEY_SPACE, 0, core::PresenterKey::Space},       {GLFW_KEY_PAGE_UP, 0, core::PresenterKey::PageUp},
    {GLFW_KEY_PAGE_DOWN, 0, core::PresenterKey::PageDown}, {GLFW_KEY_HOME, 0, core::PresenterKey::Home},
    {GLFW_KEY_END, 0, core::PresenterKey::End},           {GLFW_KEY_R, 0, core::PresenterKey::R},
    {GLFW_KEY_E, 0, core::PresenterKey::E},               {GLFW_KEY_B, 0, core::PresenterKey::B},
    {GLFW_KEY_ESCAPE, 0, core::PresenterKey::Escape},     {GLFW_KEY_SLASH, 1, core::PresenterKey::Question},
    {GLFW_KEY_F5, 0, core::PresenterKey::F5},             {GLFW_KEY_EQUAL, 0, core::PresenterKey::Plus},
    {GLFW_KEY_KP_ADD, 0, core::PresenterKey::Plus},       {GLFW_KEY_MINUS, 0, core::PresenterKey::Minus},
    {GLFW_KEY_KP_SUBTRACT, 0, core::PresenterKey::Minus}, {GLFW_KEY_M, 0, core::PresenterKey::M},
    {GLFW_KEY_N, 0, core::PresenterKey::N},           {GLFW_KEY_S, 0, core::PresenterKey::S},
    {GLFW_KEY_1, 0, core::PresenterKey::Digit1},          {GLFW_KEY_2, 0, core::PresenterKey::Digit2},
    {GLFW_KEY_3, 0, core::PresenterKey::Digit3},          {GLFW_KEY_4, 0, core::PresenterKey::Digit4},
    {GLFW_KEY_5, 0, core::PresenterKey::Digit5},          {GLFW_KEY_6, 0, core::PresenterKey::Digit6},
    {GLFW_KEY_7, 0, core::PresenterKey::Digit7},          {GLFW_KEY_8, 0, core::PresenterKey::Digit8},
    {GLFW_KEY_9, 0, core::PresenterKey::Digit9},
    {GLFW_KEY_P, 0, core::PresenterKey::P},               {GLFW_KEY_Z, 0, core::PresenterKey::Z},
    {GLFW_KEY_UP, 0, core::PresenterKey::Up},             {GLFW_KEY_DOWN, 0, core::PresenterKey::Down},
    {GLFW_KEY_F8, 0, core::PresenterKey::F8},
};

std::optional<core::PresenterKey> presenter_key(int glfw_key, int mods) {
    for (const KeyBinding& b : kKeyBindings)
        if (b.glfw_key == glfw_key && (b.shift == 0 || (mods & GLFW_MOD_SHIFT))) return b.key;
    return std::nullopt;
}

WindowEvents::Key glfw_key_for(core::PresenterKey key) {
    for (const KeyBinding& b : kKeyBindings)
        if (b.key == key) return {b.glfw_key, false, b.shift ? GLFW_MOD_SHIFT : 0};
    return {GLFW_KEY_UNKNOWN, false, 0};
}

// A scripted key every few frames, so each one lands in its own frame as a real tap would.
constexpr int kScriptKeyEveryFrames = 6;
// The shortest frame while a measurement runs: 4 a second, enough for a progress line. The window
// must not compete with what it measures: llvmpipe (and a laptop's integrated GPU) draws on the same
// cores and memory; drawing 30 frames a second, with the measurement at nice 10, a step measured
// 2-5x slower in the window than headless (issue 25; core/runtime/thread_priority.h has the other half).
// A key or a click still answers at once (wait_for_input_or).
constexpr std::chrono::milliseconds kBusyFrameInterval{250};

// Sleeps in GLFW's event wait until `deadline` or the first key or mouse button, whichever comes
// first; mouse motion alone does not wake it, so hovering does not redraw during a measurement.
void wait_for_input_or(std::chrono::steady_clock::time_point deadline, WindowEvents& events) {
    events.input = false;
    while (!events.input && !g_stop_requested) {
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) break;
        glfwWaitEventsTimeout(std::chrono::duration<double>(deadline - now).count());
    }
}

// One item of --script-keys: a presenter key, or one of the soak's items that have no key of their
// own: "Live" (live mode on/off, the checkbox), "Compare=PATH" (File > Compare with PATH),
// "Wait" (nothing for one item's frames, so runs finish and quiet frames are measured), "Idle" (the
// script holds until no measurement runs), "MeasureAll" (Lesson > Measure every step now), "F12"
// (the window's export key, pressed as a user would, outside presenter mode too) and "View=NAME"
// (the lesson view's named action, LessonView::script_action: the kernel puzzles' "type-solution"),
// and "Tab", "Shift+Tab", "F6", "Shift+F6", "Enter" for the controls' keyboard focus.
struct ScriptItem {
    std::optional<core::PresenterKey> key;
    bool live = false;
    std::string compare_path;
    bool f12 = false;
    bool idle = false;
    bool measure_every_step = false;
    std::string view_action = {};
    int raw_key = 0;  // "Tab", "Shift+Tab", "F6", "Shift+F6", "Enter": keys the presenter has no name for
    int raw_mods = 0;
};

bool parse_script(std::string_view list, std::vector<ScriptItem>& items, std::string& error) {
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        std::string_view item = list.substr(0, comma);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (item == "Live") {
            items.push_back({std::nullopt, true, {}});
        } else if (item == "Wait") {
            items.push_back({std::nullopt, false, {}});
        } else if (item == "F12") {
            items.push_back({std::nullopt, false, {}, true});
        } else if (item == "Idle") {
            items.push_back({std::nullopt, false, {}, false, true});
        } else if (item == "MeasureAll") {
            items.push_back({std::nullopt, false, {}, false, false, true});
        } else if (item == "Tab" || item == "Shift+Tab" || item == "F6" || item == "Shift+F6" || item == "Enter") {
            ScriptItem k;
            k.raw_key = item == "Enter" ? GLFW_KEY_ENTER : item.find("Tab") != std::string_view::npos ? GLFW_KEY_TAB : GLFW_KEY_F6;
            k.raw_mods = item.rfind("Shift+", 0) == 0 ? GLFW_MOD_SHIFT : 0;
            items.push_back(k);
        } else if (item.rfind("View=", 0) == 0) {
            ScriptItem v;
            v.view_action = std::string(item.substr(5));
            items.push_back(v);
        } else if (item.rfind("Compare=", 0) == 0) {
            items.push_back({std::nullopt, false, std::string(item.substr(8))});
        } else if (!item.empty()) {
            std::vector<core::PresenterKey> keys;
            if (!core::parse_presenter_keys(item, keys, error)) return false;
            items.push_back({keys.front(), false, {}});
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return true;
}

// The export's result on the terminal (the tests and scripts read it there), once it is written.
void print_export_result(const ExportResult& r) {
    std::printf("gpulab: %s\n", r.message.c_str());
    for (const auto& f : r.files) std::printf("  %s\n", f.c_str());
    std::fflush(stdout);  // shows at once when stdout is a file or a pipe
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

// In presenter mode a mouse left resting over the projected picture would keep a tooltip or a
// hover highlight on the wall for the whole lesson. After this long without moving, the pointer
// hides and ImGui is told it is nowhere; the first movement or click brings both back.
constexpr double kIdleMouseSeconds = 2.0;

class IdleMouse {
public:
    // Call between ImGui_ImplGlfw_NewFrame (which reads the pointer) and ImGui::NewFrame.
    void update(bool presenting, double now) {
        ImGuiIO& io = ImGui::GetIO();
        bool pressed = false;
        for (bool down : io.MouseDown) pressed = pressed || down;
        const bool moved = io.MousePos.x != last_.x || io.MousePos.y != last_.y || pressed;
        if (moved || !presenting) last_move_ = now;
        last_ = io.MousePos;
        idle_ = presenting && now - last_move_ > kIdleMouseSeconds;
        if (idle_) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    }
    // Call inside the frame: the GLFW backend hides the pointer at the next NewFrame.
    void hide_pointer() const {
        if (idle_) ImGui::SetMouseCursor(ImGuiMouseCursor_None);
    }

private:
    ImVec2 last_{-FLT_MAX, -FLT_MAX};
    double last_move_ = 0.0;
    bool idle_ = false;
};

struct WindowedPlacement {
    int x = 100, y = 100, w = 1600, h = 900;
};

// The monitor for fullscreen and presenter mode: --monitor N (1-based, in glfwGetMonitors order,
// the primary first), or the primary when N is 0 or names no connected monitor (said once).
GLFWmonitor* choose_monitor(int wanted) {
    int count = 0;
    GLFWmonitor** monitors = glfwGetMonitors(&count);
    if (wanted >= 1 && wanted <= count) return monitors[wanted - 1];
    if (wanted != 0) {
        std::fprintf(stderr, "gpulab: --monitor %d: %d monitor%s connected (1..%d); using the primary monitor\n",
                     wanted, count, count == 1 ? " is" : "s are", count);
    }
    return glfwGetPrimaryMonitor();
}

void set_fullscreen(GLFWwindow* window, bool on, WindowedPlacement& saved, GLFWmonitor* monitor) {
    if (on) {
        glfwGetWindowPos(window, &saved.x, &saved.y);
        glfwGetWindowSize(window, &saved.w, &saved.h);
        const GLFWvidmode* mode = monitor ? glfwGetVideoMode(monitor) : nullptr;
        if (mode) glfwSetWindowMonitor(window, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
    } else {
        glfwSetWindowMonitor(window, nullptr, saved.x, saved.y, saved.w, saved.h, GLFW_DONT_CARE);
    }
}

}  // namespace

int run_gui(const GuiOptions& options) {
    std::vector<ScriptItem> script;
    std::string script_error;
    if (!parse_script(options.script_keys, script, script_error)) {
        std::fprintf(stderr, "gpulab: --script-keys: %s\n", script_error.c_str());
        return 2;
    }
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
    // 1600x900, or the primary monitor's work area when that is smaller: on a 1280x720 screen a
    // 1600x900 window hides the Controls column and the status bar off the edge.
    int win_w = 1600, win_h = 900;
    if (GLFWmonitor* primary = glfwGetPrimaryMonitor()) {
        int ax = 0, ay = 0, aw = 0, ah = 0;
        glfwGetMonitorWorkarea(primary, &ax, &ay, &aw, &ah);
        if (aw > 0 && ah > 0) {
            win_w = std::min(win_w, aw);
            win_h = std::min(win_h, ah);
        }
    }
    GLFWwindow* window = glfwCreateWindow(win_w, win_h, "gpulab: why deep learning runs on GPUs", nullptr, nullptr);
    if (!window) {
        print_no_display(g_glfw_error.empty() ? "glfwCreateWindow failed (OpenGL 3.3 core needed)" : g_glfw_error);
        glfwTerminate();
        return 1;
    }
    WindowEvents events;
    glfwSetWindowUserPointer(window, &events);
    glfwSetKeyCallback(window, on_key);
    glfwSetMouseButtonCallback(window, on_mouse_button);
    glfwMakeContextCurrent(window);
    glfwSwapInterval(1);
    if (!gladLoadGL(glfwGetProcAddress)) {
        std::fprintf(stderr, "gpulab: cannot load OpenGL 3.3 functions through glad\n");
        glfwDestroyWindow(window);
        glfwTerminate();
        return 1;
    }

    // The window shows results this computer measured in earlier runs (or a prerun) at once.
    enable_stored_results(true);
    auto shell = std::make_unique<Shell>();
    std::string error;
    if (!shell->init({options.lesson_dirs, options.lesson_id}, error)) {
        shell.reset();
        const int rc = show_startup_error(window, error, options.max_frames, options.screenshot_path);
        glfwDestroyWindow(window);
        glfwTerminate();
        return rc;
    }
    for (const auto& e : shell->lesson_errors()) std::fprintf(stderr, "gpulab: %s\n", e.to_string().c_str());
    shell->set_measurement_priority();
    // A run slowed by other programs is repeated once the machine is quiet; a scripted window
    // (tests, screenshots) counts its runs, so it does so only when GPULAB_REMEASURE_WHEN_QUIET=1.
    const char* remeasure = std::getenv("GPULAB_REMEASURE_WHEN_QUIET");
    shell->set_remeasure_when_quiet(remeasure ? std::string_view(remeasure) == "1" : options.script_keys.empty());
    shell->use_user_settings(core::user_settings_path());
    if (options.present_scale > 0.0f) {
        for (int i = 0; i < core::kPresenterScaleCount; ++i)
            if (core::kPresenterScales[i] == options.present_scale) shell->set_presenter_scale_index(i);
    }
    if (options.present) shell->set_presenting(true);
    if (!options.compare_path.empty() && !shell->load_comparison(options.compare_path, error)) {
        // The window still opens: the reason is shown in red and printed once here.
        std::fprintf(stderr, "gpulab: --compare: %s\n", error.c_str());
    }
    // Started before the first frame so the first run in class finds CUDA and cuDNN loaded.
    auto warmup = std::make_unique<GpuWarmup>();

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
    GLFWmonitor* monitor = choose_monitor(options.monitor);
    bool fullscreen = false;
    bool was_presenting = shell->presenter_state().presenting;
    if (options.fullscreen || was_presenting) {
        set_fullscreen(window, true, placement, monitor);
        fullscreen = true;
    }
    IdleMouse idle_mouse;
    // The presenter view on the laptop's screen while the projector shows the slide.
    PresenterViewWindow presenter_view;
    double presenting_since = 0.0;
    std::size_t script_next = 0;
    float applied_scale = -1.0f;
    core::Theme applied_theme = core::Theme::Normal;
    int frames = 0;
    std::chrono::steady_clock::time_point last_frame_deadline{};
    bool waiting_for_run = false;
    std::unique_ptr<FrameStatsLog> stats = FrameStatsLog::from_environment();
    const auto started = std::chrono::steady_clock::now();
    auto frame_start = started;
    bool busy_at_start = shell->busy();

    std::signal(SIGTERM, on_stop_signal);
    std::signal(SIGINT, on_stop_signal);
    while (!glfwWindowShouldClose(window) && !g_stop_requested) {
        const auto frame_began = std::chrono::steady_clock::now();
        glfwPollEvents();
        if (!events.dropped.empty()) {
            shell->drop_files(events.dropped);
            events.dropped.clear();
        }
        if (script_next < script.size() && frames % kScriptKeyEveryFrames == kScriptKeyEveryFrames - 1 &&
            !(script[script_next].idle && (shell->busy() || shell->measuring_every_step()))) {
            const ScriptItem& item = script[script_next++];
            if (item.key) {
                events.keys.push_back(glfw_key_for(*item.key));
            } else if (item.raw_key != 0) {
                events.keys.push_back({item.raw_key, false, item.raw_mods});
            } else if (item.f12) {
                events.keys.push_back({GLFW_KEY_F12, false, 0});
            } else if (item.live) {
                shell->toggle_live();
            } else if (item.measure_every_step) {
                shell->start_measuring_every_step();
            } else if (!item.view_action.empty()) {
                std::printf("gpulab: view %s: %s\n", item.view_action.c_str(),
                            shell->view_script_action(item.view_action).c_str());
                std::fflush(stdout);
            } else if (!item.compare_path.empty()) {
                std::string why;
                const bool loaded = shell->load_comparison(item.compare_path, why);
                std::printf("gpulab: compare %s: %s\n", item.compare_path.c_str(), loaded ? "loaded" : why.c_str());
                std::fflush(stdout);
            }
        }
        if (!warmup->done() || frames < 2) shell->set_warmup_status(warmup->status());
        float cx = 1.0f, cy = 1.0f;
        glfwGetWindowContentScale(window, &cx, &cy);
        shell->set_content_scale(cx);
        const float scale = cx * shell->user_scale();
        const core::Theme theme = shell->presenter_state().theme;
        if (scale != applied_scale || theme != applied_theme || events.scale_changed) {
            // Outside NewFrame/Render: the atlas must not change while a frame uses it.
            shell->set_fonts(rebuild_fonts_and_style(scale, theme));
            applied_scale = scale;
            applied_theme = theme;
            events.scale_changed = false;
        }

        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        // The pointer (P) stays while the instructor holds the mouse still on what they explain.
        idle_mouse.update(shell->presenter_state().presenting && !shell->presenter_state().pointer_shown, glfwGetTime());
        shell->keyboard_focus().before_new_frame();
        ImGui::NewFrame();
        shell->keyboard_focus().after_new_frame();
        bool toggle = false;
        for (const WindowEvents::Key& k : events.keys) {
            // Typing in a text field must not step the lesson or start runs.
            const bool typing = io.WantTextInput;
            // Tab or F6 gives the keyboard to the controls until Escape or a click.
            if (shell->keyboard_focus().take_key(k.key, k.mods, typing)) continue;
            const std::optional<core::PresenterKey> pk = presenter_key(k.key, k.mods);
            if (!typing && pk && shell->handle_presenter_key(*pk, k.repeat)) continue;
            if (k.repeat) continue;
            if (k.key == GLFW_KEY_F12) shell->request_export();
            // Escape in a text field (the kernel editor) leaves the field, never fullscreen.
            if (k.key == GLFW_KEY_F11 || (fullscreen && k.key == GLFW_KEY_ESCAPE && !typing)) toggle = !toggle;
        }
        events.keys.clear();

        // A still picture while a measurement runs: animations resume from where they stopped.
        shell->update(shell->busy() ? 0.0f : io.DeltaTime);
        FrameContext ctx;
        ctx.size = io.DisplaySize;
        ctx.cpu_frame_ms = io.Framerate > 0.0f ? 1000.0f / io.Framerate : 0.0f;
        ctx.gpu_frame_ns = timer->last_ns();
        ctx.fullscreen = fullscreen;
        shell->frame(ctx);
        shell->keyboard_focus().draw_ring();
        idle_mouse.hide_pointer();
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

        // F12: the frame just drawn is read back and the view renders its pictures here (GL stays on
        // this thread); the PNGs are encoded and written in the background (Shell::start_export).
        const bool want_export = shell->take_export_request();
        if (want_export) {
            glReadBuffer(GL_BACK);
            shell->start_export(read_pixels_rgba(0, 0, fbw, fbh), fbw, fbh);
        }
        if (std::optional<ExportResult> done = shell->take_finished_export()) print_export_result(*done);

        ++frames;
        bool last = false;
        if (options.max_frames > 0 && frames >= options.max_frames) {
            // A smoke test's screenshot should show a finished measurement and a finished export;
            // wait for both, boundedly.
            if (!waiting_for_run) {
                waiting_for_run = true;
                last_frame_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            }
            const bool script_done = script_next >= script.size() && events.keys.empty();
            last = (script_done && !shell->busy() && !shell->exporting()) ||
                   std::chrono::steady_clock::now() > last_frame_deadline;
        }
        if (last && !options.screenshot_path.empty()) {
            glReadBuffer(GL_BACK);
            std::vector<uint8_t> pixels = read_pixels_rgba(0, 0, fbw, fbh);
            std::string werr;
            if (!write_png(options.screenshot_path, pixels, fbw, fbh, werr)) {
                std::fprintf(stderr, "gpulab: %s\n", werr.c_str());
                frames = -1;
            }
        }
        glfwSwapBuffers(window);
        shell->note_frame_drawn();
        {
            const bool presenting_now = shell->presenter_state().presenting;
            GLFWmonitor* second = presenting_now ? other_monitor(monitor) : nullptr;
            const bool want = presenting_now && options.presenter_view != "off" &&
                              (options.presenter_view == "on" || second != nullptr);
            if (want && !presenter_view.is_open()) {
                std::string why;
                presenting_since = glfwGetTime();
                if (!presenter_view.open(second, &events, on_key, cx * shell->user_scale(), why))
                    std::fprintf(stderr, "gpulab: %s; the slide carries on without it\n", why.c_str());
                glfwFocusWindow(window);
            } else if (!want && presenter_view.is_open()) {
                presenter_view.close();
            }
            shell->set_presenter_view_open(presenter_view.is_open());
            presenter_view.frame(
                [&](const Fonts& f, ImVec2 size) {
                    shell->draw_presenter_view(f, size, glfwGetTime() - presenting_since);
                },
                last && !options.screenshot_path.empty());
            if (last && presenter_view.is_open() && !options.screenshot_path.empty()) {
                int pw = 0, ph = 0;
                const std::vector<uint8_t>& pixels = presenter_view.captured(pw, ph);
                std::string path = options.screenshot_path;
                if (path.size() > 4 && path.compare(path.size() - 4, 4, ".png") == 0) path.resize(path.size() - 4);
                path += "-presenter-view.png";
                std::string werr;
                if (!write_png(path, pixels, pw, ph, werr)) std::fprintf(stderr, "gpulab: %s\n", werr.c_str());
            }
        }
        // While a measurement runs, at most 4 frames a second: the window has the higher priority
        // (core/runtime/thread_priority.h), so what it draws comes out of the measurement's cores. Without
        // vsync (Xvfb, some drivers) it would otherwise draw as fast as it can.
        if (shell->busy()) wait_for_input_or(frame_began + kBusyFrameInterval, events);
        if (shell->take_fullscreen_toggle()) toggle = true;
        // Presenter mode takes the whole chosen monitor; leaving it restores the window unless
        // the user asked for fullscreen on the command line.
        const bool presenting = shell->presenter_state().presenting;
        if (presenting != was_presenting) {
            if (presenting != fullscreen && (presenting || !options.fullscreen)) toggle = !toggle;
            was_presenting = presenting;
        }
        if (toggle) {
            fullscreen = !fullscreen;
            set_fullscreen(window, fullscreen, placement, monitor);
        }
        if (stats) {
            // Quiet: no measurement at either end of the frame and no export written in it.
            const auto now = std::chrono::steady_clock::now();
            const bool busy_now = shell->busy();
            stats->frame(std::chrono::duration<double>(now - started).count(),
                         std::chrono::duration<double, std::milli>(now - frame_start).count(),
                         !busy_at_start && !busy_now && !want_export);
            frame_start = now;
            busy_at_start = busy_now;
        }
        if (last) break;
    }

    // Closing the window during an export: its files are finished (no PNG is left cut short) and
    // the result printed, before the views that queued them go.
    if (std::optional<ExportResult> done = shell->finish_export()) print_export_result(*done);
    if (!options.script_keys.empty()) {
        std::printf("gpulab: presenter %s\n", shell->presenter_summary().c_str());
        // The controls' grey and red lines as the script left them (tests read where a result came from).
        std::printf("gpulab: controls info='%s' error='%s'\n", shell->info_message().c_str(), shell->error_message().c_str());
        std::fflush(stdout);
    }
    presenter_view.close();
    // The last results go to disk now, while everything their writer asks (the GPU probe) exists.
    if (core::ResultStore* store = stored_results()) store->flush();
    // GL objects (textures, timer queries, the renderer) go while the context still exists.
    warmup.reset();
    shell.reset();
    timer.reset();
    // A last line after the teardown: every GL count should be back at 0.
    if (stats) stats->write_line(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    stats.reset();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return frames < 0 ? 1 : 0;
}

}  // namespace gpulab::app
