// The status bar: in the window, CPU frame time (ImGui's estimate), GPU frame time (GL timer queries), the
// running measurement, and the lesson view's own part (the activation view: display path, its measured
// cost, and why interop is impossible when it is); in an exported picture, the machine and date
// instead of frame times. Checked in the GUI screenshots and the exported step pictures.
#include <ctime>
#include <string>

#include "format.h"
#include "gpu_backends.h"
#include "machine_info.h"
#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void Shell::draw_status_bar(const FrameContext& ctx) {
    if (ctx.headless) {
        // An exported picture has no frame times worth showing; on a slide the bar says instead
        // where and when the numbers on it were measured.
        const core::MachineInfo& m = core::host_machine();
        const gpu::GpuProbe& g = gpu::probe();
        const std::string line = "gpulab " + std::string(GPULAB_VERSION) + "  |  measured on " +
                                 (m.cpu_model.empty() ? std::string("an unknown CPU") : m.cpu_model) + " (" +
                                 std::to_string(m.hardware_threads) + " threads), " +
                                 (g.device_ok ? g.name : std::string("no GPU")) + "  |  " +
                                 core::utc_timestamp(std::time(nullptr));
        ImGui::TextColored(kMutedColour, "%s", line.c_str());
    } else {
        ImGui::Text("CPU frame %.1f ms", ctx.cpu_frame_ms);
        hover_tip("Time the CPU spent per frame (ImGui's running estimate), including waiting for vsync.");
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        if (ctx.gpu_frame_ns >= 0)
            ImGui::Text("GPU frame %s", core::format_duration(ctx.gpu_frame_ns).c_str());
        else
            ImGui::TextColored(kMutedColour, "GPU frame: no timer result yet");
        hover_tip("Time the GPU spent drawing the frame, from GL_TIME_ELAPSED queries read a few frames late.");
    }
    // The running measurement comes before the longer, optional items: on a narrow window the bar
    // cuts off its right end, and "is it still measuring?" is what a student looks here for.
    if (jobs_.busy()) {
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        ImGui::TextColored(kAccentColour, "%s %.0f %%", jobs_.label().c_str(), 100.0f * jobs_.progress());
        hover_tip("The measurement running in the background; Cancel is beside the progress bar in Controls.");
    }
    if (exporting()) {
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        ImGui::TextColored(kAccentColour, "%s", last_export_.message.c_str());
        hover_tip("The export's PNG and CSV files are being encoded and written in the background.");
    }
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    draw_presenter_status();  // GPU warm-up result and presenter messages (app/shell/presenter_frame.cpp)
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    if (view_) view_->draw_status();
}

}  // namespace gpulab::app
