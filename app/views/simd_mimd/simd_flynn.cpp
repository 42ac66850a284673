// Flynn's taxonomy as a 2x2 grid (instruction streams down, data streams across), each cell with
// a small animation driven by what this machine measured: SISD one lane stepping through the data,
// SIMD the vector width of the instruction set that ran lighting together, MIMD the demo's
// threads replaying their real timeline with their own task names, and MISD, honestly, as the rare
// case with no hardware here. Below the grid, where a GPU sits: SIMT. Checked by eye in the
// screenshots (/tmp/simd_flynn.png).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "measure/format.h"
#include "measure/machine_info.h"
#include "simd_mimd_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr float kTickSeconds = 0.45f;  // one "instruction" of the animations
constexpr ImU32 kIdle = IM_COL32(52, 54, 62, 255);
constexpr ImU32 kDone = IM_COL32(80, 96, 120, 255);

void wrapped_muted(const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
}

// A row of `count` data boxes of which [lit_from, lit_to) are being worked on and the ones
// before lit_from are finished.
void data_row(ImDrawList* dl, ImVec2 p, float width, float h, int count, int lit_from, int lit_to, ImU32 lit) {
    const float w = width / static_cast<float>(count);
    for (int i = 0; i < count; ++i) {
        const ImU32 c = i >= lit_from && i < lit_to ? lit : i < lit_from ? kDone : kIdle;
        const float a = p.x + static_cast<float>(i) * w;
        dl->AddRectFilled({a + 1, p.y}, {a + w - 1, p.y + h}, c, w >= 8 ? 2.0f : 0.0f);
    }
}

void cell_title(const Fonts& fonts, const char* name, const char* expansion) {
    if (fonts.bold) ImGui::PushFont(fonts.bold);
    ImGui::TextColored(kAccentColour, "%s", name);
    if (fonts.bold) ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextColored(kMutedColour, "%s", expansion);
}

}  // namespace

void SimdMimdView::draw_flynn_panel() {
    const float lh = ImGui::GetTextLineHeight();
    const int tick = static_cast<int>(anim_time_ / kTickSeconds);
    const core::SimdComparison* simd = result_ && result_->simd.ok ? &result_->simd : nullptr;
    const core::MimdTimeline* mimd = result_ && result_->mimd.ok ? &result_->mimd : nullptr;
    const int lanes = simd ? std::max(simd->lanes, 1) : 8;
    const int cores = std::max(core::host_machine().hardware_threads, 1);

    const float avail_h = ImGui::GetContentRegionAvail().y;
    const float footer_h = ImGui::GetTextLineHeightWithSpacing() * 2.3f;
    const float header_h = ImGui::GetTextLineHeightWithSpacing();
    const float row_h = std::max((avail_h - footer_h - header_h) * 0.5f - ImGui::GetStyle().CellPadding.y * 2, lh * 6);
    const ImGuiTableFlags tf = ImGuiTableFlags_BordersInner | ImGuiTableFlags_SizingStretchSame;
    if (ImGui::BeginTable("##flynn", 2, tf)) {
        ImGui::TableSetupColumn("one data stream");
        ImGui::TableSetupColumn("many data streams");
        ImGui::TableHeadersRow();
        ImDrawList* dl = ImGui::GetWindowDrawList();

        // [SECTION] single instruction stream
        ImGui::TableNextRow(0, row_h);
        ImGui::TableSetColumnIndex(0);
        {
            cell_title(host_.fonts, "SISD", "one instruction stream, one number at a time");
            const float w = ImGui::GetContentRegionAvail().x;
            const int count = 32;
            const int at = tick % (count + 2);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            data_row(dl, p, w, lh * 1.2f, count, at, at + 1, backend_color("cpu-scalar"));
            ImGui::Dummy({w, lh * 1.4f});
            char buf[200];
            if (simd)
                std::snprintf(buf, sizeof buf, "Here: a CPU core's scalar unit, the plain loop: %.2f ns per %s.",
                              static_cast<double>(simd->scalar.median_ns) / static_cast<double>(simd->elements),
                              std::string(core::activation_name(result_->activation)).c_str());
            else
                std::snprintf(buf, sizeof buf, "Here: a CPU core's scalar unit, the plain loop.");
            wrapped_muted(buf);
        }
        ImGui::TableSetColumnIndex(1);
        {
            char sub[64];
            std::snprintf(sub, sizeof sub, "one instruction stream, %d numbers at once", lanes);
            cell_title(host_.fonts, "SIMD", sub);
            const float w = ImGui::GetContentRegionAvail().x;
            const int groups = std::max(32 / lanes, 2);
            const int count = lanes * groups;
            const int g = tick % (groups + 1);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            data_row(dl, p, w, lh * 1.2f, count, g * lanes, (g + 1) * lanes, path_color(0));
            ImGui::Dummy({w, lh * 1.4f});
            char buf[300];
            if (simd)
                std::snprintf(buf, sizeof buf,
                              "Here: the core's %s unit, %d floats per instruction, measured %s faster than the "
                              "scalar loop. A GPU warp is SIMD too: 32 threads, one instruction stream.",
                              simd->isa.c_str(), simd->lanes, core::format_ratio(simd->speedup).c_str());
            else
                std::snprintf(buf, sizeof buf,
                              "Here: the core's vector unit (measuring which one ...). A GPU warp is SIMD too: 32 "
                              "threads, one instruction stream.");
            wrapped_muted(buf);
        }

        // [SECTION] multiple instruction streams
        ImGui::TableNextRow(0, row_h);
        ImGui::TableSetColumnIndex(0);
        {
            cell_title(host_.fonts, "MISD", "many instruction streams, the same number");
            const float w = ImGui::GetContentRegionAvail().x;
            const ImVec2 p = ImGui::GetCursorScreenPos();
            // One datum fanned out to three different programs whose answers are compared: drawn
            // grey and still, because nothing on this machine works this way.
            const float h = lh * 1.2f, bw = std::min(w * 0.18f, lh * 4.5f);
            const ImU32 grey = IM_COL32(110, 112, 120, 255);
            dl->AddRectFilled({p.x, p.y}, {p.x + lh * 1.6f, p.y + h}, grey, 2.0f);
            const char* progs[] = {"prog A", "prog B", "prog C"};
            for (int k = 0; k < 3; ++k) {
                const float x = p.x + lh * 2.6f + static_cast<float>(k) * (bw + lh * 0.6f);
                dl->AddRect({x, p.y}, {x + bw, p.y + h}, grey, 2.0f);
                dl->AddText({x + 4, p.y + (h - lh) * 0.5f}, grey, progs[k]);
            }
            const float xv = p.x + lh * 2.6f + 3 * (bw + lh * 0.6f);
            dl->AddText({xv, p.y + (h - lh) * 0.5f}, grey, "vote");
            ImGui::Dummy({w, lh * 1.4f});
            wrapped_muted(
                "Rare: fault-tolerant systems (flight computers) run different programs on the same input and "
                "compare. No hardware on this machine works this way.");
        }
        ImGui::TableSetColumnIndex(1);
        {
            char sub[64];
            std::snprintf(sub, sizeof sub, "%d instruction streams, each its own data", mimd ? mimd->threads : cores);
            cell_title(host_.fonts, "MIMD", sub);
            const float w = ImGui::GetContentRegionAvail().x;
            if (mimd && mimd->wall_ns > 0) {
                // Replays the measured timeline: each thread's bar grows as its slices finished.
                const float period = 4.0f;
                const double f = std::fmod(anim_time_, period + 1.0f) / period;
                const int64_t now = static_cast<int64_t>(std::min(f, 1.0) * static_cast<double>(mimd->wall_ns));
                std::map<int, std::pair<int, int>> done;  // thread -> (slices done, slices)
                std::map<int, std::string> task;
                for (const core::TimelineSpan& sp : mimd->spans) {
                    auto& d = done[sp.thread];
                    ++d.second;
                    if (sp.end_ns <= now) ++d.first;
                    task[sp.thread] = sp.task;
                }
                const int rows = std::min(mimd->threads, 4);
                const float rh = std::min(lh * 1.05f, (lh * 2.8f) / static_cast<float>(rows));
                const ImVec2 p = ImGui::GetCursorScreenPos();
                const float bar_x = p.x + w * 0.68f;
                for (int t = 0; t < rows; ++t) {
                    const float y = p.y + static_cast<float>(t) * rh;
                    const auto& d = done[t];
                    const float frac = d.second ? static_cast<float>(d.first) / static_cast<float>(d.second) : 0.0f;
                    ImGui::PushClipRect({p.x, y}, {bar_x - 4, y + rh}, true);
                    dl->AddText({p.x, y}, task_color(task[t]), ("thread " + std::to_string(t) + ": " + task[t]).c_str());
                    ImGui::PopClipRect();
                    dl->AddRectFilled({bar_x, y + 2}, {p.x + w, y + rh - 2}, kIdle, 2.0f);
                    dl->AddRectFilled({bar_x, y + 2}, {bar_x + (p.x + w - bar_x) * frac, y + rh - 2},
                                      task_color(task[t]), 2.0f);
                }
                ImGui::Dummy({w, rh * static_cast<float>(rows) + 2});
            } else {
                ImGui::TextColored(kMutedColour, "%s", host_.jobs->busy() ? "measuring ..." : "not measured yet");
            }
            char buf[220];
            std::snprintf(buf, sizeof buf,
                          "Here: this CPU's %d hardware threads, each fetching its own instructions. A GPU's SMs "
                          "also run different warps independently.",
                          cores);
            wrapped_muted(buf);
        }
        ImGui::EndTable();
    }
    ImGui::TextColored(kAccentColour, "A GPU is SIMT:");
    ImGui::SameLine();
    ImGui::TextWrapped(
        "each instruction a warp issues runs for its 32 threads at once (SIMD inside the warp), while the "
        "warps are scheduled independently (MIMD across them). Since Volta each thread also has its own program "
        "counter, so code may not assume a warp's lanes stay in step. Activations are the textbook SIMD case: "
        "the same formula on every element.");
}

}  // namespace gpulab::app
