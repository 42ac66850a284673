// glad first: it must be the only GL header, so GLFW is told not to include its own.
#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>
#include <vector>

#include "render/gl_util.h"
#include "startup_error_window.h"
#include "views/export.h"

namespace gpulab::app {

int show_startup_error(GLFWwindow* window, const std::string& message, int max_frames,
                       const std::string& screenshot_path) {
    std::fprintf(stderr, "gpulab: %s\n", message.c_str());
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    // The fonts live in the data folder that may be the very thing missing: ImGui's built-in font,
    // scaled up so the sentence reads at a normal distance.
    float xscale = 1.0f, yscale = 1.0f;
    glfwGetWindowContentScale(window, &xscale, &yscale);
    io.FontGlobalScale = 1.6f * (yscale > 0.0f ? yscale : 1.0f);
    ImGui::StyleColorsDark();
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 330");

    int frames = 0;
    bool close = false;
    while (!glfwWindowShouldClose(window) && !close) {
        glfwPollEvents();
        ImGui_ImplOpenGL3_NewFrame();
        ImGui_ImplGlfw_NewFrame();
        ImGui::NewFrame();
        const ImVec2 size = io.DisplaySize;
        const ImVec2 box(size.x * 0.6f, 0.0f);
        ImGui::SetNextWindowPos(ImVec2(size.x * 0.5f, size.y * 0.4f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
        ImGui::SetNextWindowSize(box, ImGuiCond_Always);
        ImGui::Begin("gpulab cannot start", nullptr,
                     ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize |
                         ImGuiWindowFlags_AlwaysAutoResize);
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.55f, 0.45f, 1.0f));
        ImGui::TextWrapped("%s", message.c_str());
        ImGui::PopStyleColor();
        ImGui::Spacing();
        ImGui::TextWrapped("The same sentence was printed in the terminal, if gpulab was started from one.");
        ImGui::Spacing();
        if (ImGui::Button("Close") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) close = true;
        ImGui::End();
        ImGui::Render();

        int fbw = 0, fbh = 0;
        glfwGetFramebufferSize(window, &fbw, &fbh);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        glViewport(0, 0, fbw, fbh);
        glClearColor(0.07f, 0.07f, 0.08f, 1.0f);
        glClear(GL_COLOR_BUFFER_BIT);
        ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
        const bool last = max_frames > 0 && ++frames >= max_frames;
        if (last && !screenshot_path.empty()) {
            glReadBuffer(GL_BACK);
            const std::vector<uint8_t> pixels = read_pixels_rgba(0, 0, fbw, fbh);
            std::string error;
            if (!write_png(screenshot_path, pixels, fbw, fbh, error)) std::fprintf(stderr, "gpulab: %s\n", error.c_str());
        }
        glfwSwapBuffers(window);
        if (last) break;
    }
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    return 1;
}

}  // namespace gpulab::app
