// The status bar: CPU frame time (ImGui's estimate), GPU frame time (GL timer queries), which
// display path the pictures use (CUDA-GL interop or host upload), the measured cost of the last
// display update, and why interop is impossible when it is. Checked in the GUI screenshots.
#include "format.h"
#include "shell.h"
#include "ui_helpers.h"

namespace gpulab::app {

void Shell::draw_status_bar(const FrameContext& ctx) {
    if (ctx.headless)
        ImGui::TextColored(kMutedColour, "headless export: no window, no frame timing");
    else
        ImGui::Text("CPU frame %.1f ms", ctx.cpu_frame_ms);
    hover_tip("Time the CPU spent per frame (ImGui's running estimate), including waiting for vsync.");
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    if (ctx.headless)
        ImGui::TextColored(kMutedColour, "GPU frame: -");
    else if (ctx.gpu_frame_ns >= 0)
        ImGui::Text("GPU frame %s", core::format_duration(ctx.gpu_frame_ns).c_str());
    else
        ImGui::TextColored(kMutedColour, "GPU frame: no timer result yet");
    hover_tip("Time the GPU spent drawing the frame, from GL_TIME_ELAPSED queries read a few frames late.");
    ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
    if (output_tex_) {
        // Both display paths are timed; the bar names the one in use, its cost and, when CUDA
        // cannot write into GL textures here, why not.
        const DisplayStatus& ds = output_tex_->status();
        const bool interop = ds.path == DisplayPath::Interop;
        ImGui::TextColored(interop ? kOkColour : kAccentColour, "%s",
                           interop                              ? "display: CUDA-GL interop"
                           : ds.path == DisplayPath::HostUpload ? "display: host upload"
                                                                : "display: none");
        hover_tip(("Path of the last picture update: " + ds.reason +
                   "\n\nInterop copies the GPU's output straight into a GL texture; host upload writes the "
                   "floats into a pixel buffer that the GPU then copies into the texture.")
                      .c_str());
        ImGui::SameLine();
        std::string cost;
        if (interop) {
            cost = ds.upload_ns >= 0 ? "device copy " + core::format_duration(ds.upload_ns) : "device copy: -";
        } else if (ds.path == DisplayPath::HostUpload) {
            cost = "upload " + (ds.upload_ns >= 0 ? core::format_duration(ds.upload_ns) + " GPU" : std::string("..."));
            if (ds.host_copy_ns >= 0) cost += " + " + core::format_duration(ds.host_copy_ns) + " host copy";
            if (ds.downsample > 1)
                cost += ", shown at 1/" + std::to_string(ds.downsample) + " size";
        }
        if (!cost.empty()) ImGui::Text("%s", cost.c_str());
        hover_tip("Measured on the last display update: GPU time from GL timestamp queries (interop: CUDA "
                  "events), host copy from the CPU clock.");
        if (!ds.interop_ok && !ds.interop_reason.empty()) {
            std::string why = ds.interop_reason;
            const std::string prefix = "host upload: ";
            if (why.rfind(prefix, 0) == 0) why.erase(0, prefix.size());
            ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
            ImGui::TextColored(kMutedColour, "interop not possible: %s", why.c_str());
            hover_tip(ds.interop_reason.c_str());
        }
    } else {
        ImGui::TextColored(kMutedColour, "display: nothing shown yet");
    }
    if (jobs_.busy()) {
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        ImGui::TextColored(kAccentColour, "%s %.0f %%", jobs_.label().c_str(), 100.0f * jobs_.progress());
    }
}

}  // namespace gpulab::app
