// The status bar: what a student or an audience needs: the machine the numbers come from (with the
// date in an exported picture), the running measurement, the export and presenter messages. The
// technical details (frame times, the GPU warm-up, the lesson view's display path and why interop
// is not possible) sit behind one "details" item's tooltip and in the Devices panel, not on a
// projector. Checked in the GUI screenshots and the exported step pictures.
#include <algorithm>
#include <ctime>
#include <string>

#include "measure/format.h"
#include "gpu_backends.h"
#include "measure/machine_info.h"
#include "render/render_problems.h"
#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void Shell::draw_status_bar(const FrameContext& ctx) {
    // Where the numbers on screen come from; an exported picture also says when.
    const core::MachineInfo& m = core::host_machine();
    const gpu::GpuProbe& g = gpu::probe();
    std::string line = "gpulab " + std::string(GPULAB_VERSION) + "  |  measured on " +
                       (m.cpu_model.empty() ? std::string("an unknown CPU") : m.cpu_model) + " (" +
                       std::to_string(m.hardware_threads) + " threads), " +
                       (g.device_ok ? g.name : std::string("no GPU"));
    // A result imported from another computer's prerun says so here too, not this computer's name.
    if (const std::string& other = shown_result_machine(); !other.empty())
        line = "gpulab " + std::string(GPULAB_VERSION) + "  |  on screen: measured on another computer, " + other;
    if (ctx.headless) line += "  |  " + core::utc_timestamp(std::time(nullptr));
    ImGui::TextColored(kMutedColour, "%s", line.c_str());
    // While the controls hold the keyboard, the arrows and Space do something else than in the key
    // map: said where the eye goes after a surprise.
    if (keyboard_focus_.holds_keyboard()) {
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        ImGui::TextColored(kAccentColour, "keys on the %s: Tab next, F6 next panel, Space acts, Esc back to the steps",
                           keyboard_focus_.focused_panel().c_str());
    }
    // The running measurement comes before the longer, optional items: on a narrow window the bar
    // cuts off its right end, and "is it still measuring?" is what a student looks here for.
    if (every_step_.active) {
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        ImGui::TextColored(kAccentColour, "measuring every step: step %d of %d", every_step_.step + 1, step_count());
        hover_tip("Lesson > Measure every step now: each step measures what it shows in class. Cancel (S in presenter "
                  "mode) stops it; the steps measured so far keep their results.");
    }
    if (const std::string& problem = render_problem(); !problem.empty()) {
        // Once, here, in words; the driver's whole log in the tooltip's file line.
        ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
        ImGui::TextColored(kErrorColour, "pictures not drawn");
        hover_tip(problem.c_str());
    }
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
    draw_presenter_status();  // presenter messages (app/shell/presenter_frame.cpp)
    if (ctx.headless) return;
    // The technical details, one hover away at the right end.
    const char* label = "details";
    const float x = ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(label).x;
    ImGui::SameLine(std::max(x, ImGui::GetCursorPosX() + ImGui::GetFontSize()));
    ImGui::TextColored(kMutedColour, "%s", label);
    if (ImGui::IsItemHovered()) {
        ImGui::BeginTooltip();
        ImGui::Text("CPU frame %.1f ms (ImGui's running estimate, waiting for vsync included)", ctx.cpu_frame_ms);
        if (ctx.gpu_frame_ns >= 0)
            ImGui::Text("GPU frame %s (GL timer queries, read a few frames late)",
                        core::format_duration(ctx.gpu_frame_ns).c_str());
        else
            ImGui::TextUnformatted("GPU frame: no timer result yet");
        if (!warmup_status_.empty()) ImGui::TextUnformatted(warmup_status_.c_str());
        if (view_) {
            ImGui::Separator();
            view_->draw_status();  // the lesson view's display path and its cost
        }
        ImGui::EndTooltip();
    }
}

}  // namespace gpulab::app
