// run_export: `gpulab export` with no window and no display. An offscreen EGL context, an ImGui
// context with no platform backend (display size and frame time set by hand), one synchronous
// measurement, then the same Shell frame as the GUI drawn into a framebuffer for a few frames
// (auto-sized windows settle over 2-3) before the files are written. Verified by the
// gui.export test in tests/gui_tests.cmake, which also checks the PNGs are not blank.
#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>
#include <memory>

#include "app_entry.h"
#include "fonts.h"
#include "gl_util.h"
#include "offscreen_context.h"
#include "shell.h"

namespace gpulab::app {

int run_export(const ExportOptions& options) {
    if (options.out_dir.empty()) {
        std::fprintf(stderr, "gpulab export: --out DIR is required\n");
        return 1;
    }
    if (options.width < 320 || options.height < 240 || options.width > 8192 || options.height > 8192) {
        std::fprintf(stderr, "gpulab export: picture size %dx%d is outside 320x240 .. 8192x8192\n", options.width,
                     options.height);
        return 1;
    }
    std::string why;
    std::unique_ptr<OffscreenContext> gl = OffscreenContext::create(why);
    if (!gl) {
        std::fprintf(stderr, "gpulab export: no offscreen OpenGL context: %s\n", why.c_str());
        return 1;
    }
    gl->make_current();

    auto shell = std::make_unique<Shell>();
    std::string error;
    if (!shell->init({options.lesson_dirs, options.lesson_id}, error)) {
        std::fprintf(stderr, "gpulab export: %s\n", error.c_str());
        return 1;
    }
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = {static_cast<float>(options.width), static_cast<float>(options.height)};
    ImGui_ImplOpenGL3_Init("#version 330");
    shell->set_fonts(rebuild_fonts_and_style(1.0f));
    shell->set_export_dir(options.out_dir);

    auto cleanup = [&] {
        shell.reset();
        ImGui_ImplOpenGL3_Shutdown();
        ImGui::DestroyContext();
    };
    std::printf("gpulab export: %s, measuring%s ...\n", gl->description().c_str(), options.quick ? " (quick)" : "");
    std::fflush(stdout);
    shell->run_blocking(options.quick);
    if (!shell->has_result()) {
        std::fprintf(stderr, "gpulab export: measurement failed: %s\n", shell->error_message().c_str());
        cleanup();
        return 1;
    }
    shell->set_animation_time(3.5f);

    Framebuffer fb;
    if (!fb.resize(options.width, options.height)) {
        std::fprintf(stderr, "gpulab export: cannot create a %dx%d framebuffer\n", options.width, options.height);
        cleanup();
        return 1;
    }
    FrameContext ctx;
    ctx.size = io.DisplaySize;
    ctx.headless = true;
    for (int frame = 0; frame < 3; ++frame) {
        io.DeltaTime = 1.0f / 60.0f;
        ImGui_ImplOpenGL3_NewFrame();
        ImGui::NewFrame();
        shell->frame(ctx);
        ImGui::Render();
        fb.bind();
        glClearColor(0.07f, 0.07f, 0.08f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    }
    std::vector<uint8_t> pixels = fb.read_rgba();
    ExportResult result = shell->export_now(std::move(pixels), options.width, options.height);
    if (result.ok) {
        std::printf("gpulab export: %s\n", result.message.c_str());
        for (const auto& f : result.files) std::printf("  %s\n", f.c_str());
    } else {
        std::fprintf(stderr, "gpulab export: %s\n", result.message.c_str());
    }
    cleanup();
    return result.ok ? 0 : 1;
}

}  // namespace gpulab::app
