// The Devices panel: every backend with its availability and the reason verbatim (description
// as tooltip), then what the GPU probe found: name, compute capability, SMs, memory, driver and
// runtime versions, cuDNN, or why each is missing.
#include <cstdio>

#include "backend_set.h"
#include "measure/format.h"
#include "gpu_backends.h"
#include "gpu_model/gpu_model.h"
#include "measure/machine_info.h"
#include "shell.h"
#include "views/recorded_gpu.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

std::string cuda_version(int v) {
    if (v <= 0) return "-";
    char b[32];
    std::snprintf(b, sizeof b, "%d.%d", v / 1000, (v % 1000) / 10);
    return b;
}

}  // namespace

void Shell::draw_devices() {
    ImGui::TextColored(kMutedColour, "Backends");
    for (const core::Backend* b : backend_ptrs_) {
        const core::Availability av = gpu::availability_now(*b);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(backend_color(b->name())), "%s", std::string(b->name()).c_str());
        hover_tip(std::string(b->description()).c_str());
        ImGui::SameLine();
        if (av.ok) {
            text_status(Status::Ok, "available");
        } else {
            text_status(Status::Error, "unavailable");
            // The machine's own reason (no driver, no GPU) is said once, under GPU below; a backend
            // row repeats it only as a tooltip. Other reasons (cuDNN missing, ...) stay on the row.
            if (!core::plain_gpu_reason(av.reason).empty()) {
                hover_tip(av.reason.c_str());
                continue;
            }
            ImGui::Indent();
            ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
            ImGui::TextWrapped("%s", av.reason.c_str());
            ImGui::PopStyleColor();
            ImGui::Unindent();
        }
    }
    ImGui::Spacing();
    ImGui::Separator();
    const auto& m = core::host_machine();
    ImGui::TextColored(kMutedColour, "CPU");
    ImGui::TextWrapped("%s, %d hardware threads", m.cpu_model.c_str(), m.hardware_threads);
    ImGui::Spacing();
    ImGui::TextColored(kMutedColour, "GPU");
    const gpu::GpuProbe& g = gpu::probe_now();
    if (!g.compiled_in || !g.device_ok) {
        const std::string plain = core::plain_gpu_reason(g.compiled_in ? g.reason : "CUDA not compiled in");
        if (!plain.empty()) {
            // Said once, in a student's words; the driver's exact error is the tooltip.
            ImGui::TextWrapped("%s.", core::no_gpu_sentence(g.compiled_in ? g.reason : "CUDA not compiled in").c_str());
            hover_tip(g.reason.c_str());
        } else {
            ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
            ImGui::TextWrapped("none: %s", g.reason.c_str());
            ImGui::PopStyleColor();
        }
    } else {
        ImGui::TextWrapped("%s", g.name.c_str());
        ImGui::Text("CC %d.%d, %d SMs, warp %d", g.cc_major, g.cc_minor, g.sm_count, g.warp_size);
        ImGui::Text("memory %s (%s free)", core::format_bytes(static_cast<double>(g.total_memory)).c_str(),
                    core::format_bytes(static_cast<double>(g.free_memory)).c_str());
    }
    if (g.compiled_in)
        ImGui::Text("driver %s, runtime %s", cuda_version(g.driver_version).c_str(),
                    cuda_version(g.runtime_version).c_str());
    if (g.cudnn_ok) {
        ImGui::Text("cuDNN %s", g.cudnn_version.c_str());
    } else {
        ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
        const bool for_want_of_gpu = !g.cudnn_library_missing && !core::plain_gpu_reason(g.cudnn_reason).empty();
        if (for_want_of_gpu) {
            ImGui::TextWrapped("cuDNN %s found; it needs the GPU", g.cudnn_version.c_str());
        } else if (g.cudnn_library_missing) {
            ImGui::TextWrapped("cuDNN: not installed (the cudnn row says how to add it)");
        } else {
            ImGui::TextWrapped("cuDNN: %s", g.cudnn_reason.empty() ? "not available" : g.cudnn_reason.c_str());
        }
        ImGui::PopStyleColor();
    }
    hover_tip(gpu::probe_ready() ? gpu::version_summary().c_str() : gpu::kProbing);
    // The GPU run the lessons draw beside this computer's (views/recorded_gpu.h), or why there is none.
    ImGui::Spacing();
    ImGui::TextColored(kMutedColour, "Recorded GPU run");
    if (const core::GpuRecording* rec = shipped_recording()) {
        const core::RecordingProvenance& p = rec->provenance;
        ImGui::TextWrapped("%s: drawn beside this computer's runs, never as its own", rec->source().c_str());
        std::string tip = "recorded " + p.date + "\nfrom " + rec->folder.string() + "\n" + std::to_string(rec->files.size()) + " measurements";
        if (!p.driver.empty()) tip += "\ndriver " + p.driver;
        if (!p.cuda.empty()) tip += ", CUDA " + p.cuda;
        if (!p.cudnn.empty()) tip += ", cuDNN " + p.cudnn;
        if (!p.cublas.empty()) tip += ", cuBLAS " + p.cublas;
        if (!p.commit.empty()) tip += "\ngpulab commit " + p.commit;
        if (!rec->skipped.empty()) tip += "\n" + std::to_string(rec->skipped.size()) + " files passed over, the first: " + rec->skipped.front();
        hover_tip(tip.c_str());
    } else {
        ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
        ImGui::TextWrapped("none: %s; GPU rows show an estimate where one is possible", recording_problem().c_str());
        ImGui::PopStyleColor();
    }
}

}  // namespace gpulab::app
