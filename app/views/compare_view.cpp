// Shared pieces of the comparison with another machine: see compare_view.h. The legend is drawn
// with ImGui items (Dummy + text) so it takes its room in the layout and never overlaps the plot
// or table under it; long labels are cut to one line with the whole text in a tooltip.
#include "compare_view.h"

#include <algorithm>
#include <filesystem>

#include "timing_plot.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// One line of text cut to `width` pixels with "..." (the full text goes in the tooltip).
std::string cut_to(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    std::string s = text;
    while (!s.empty() && ImGui::CalcTextSize((s + "...").c_str()).x > width) s.pop_back();
    return s + "...";
}

}  // namespace

std::string this_machine_text() { return "this machine: " + this_machine_label(); }

std::string other_machine_text(const core::ImportedMachine& other) {
    if (other.estimate) return other.recorded_source + ": published figures and a model, not a measurement";
    if (!other.recorded_source.empty()) return other.recorded_source + "; not this computer";
    return "other machine: " + other.machine_label + ", " + other.date;
}

std::string other_name(const core::ImportedMachine& other) {
    return other.estimate ? "GPU estimate" : other.recorded_source.empty() ? "other machine" : "recorded GPU run";
}

std::string other_value_prefix(const core::ImportedMachine& other) {
    return other.estimate ? "estimate: " : other.recorded_source.empty() ? "other: " : "recorded: ";
}

std::vector<std::string> compare_caption_lines(const core::ImportedMachine& other, const std::string& what,
                                               const std::string& mismatch) {
    std::vector<std::string> lines;
    // One line each: together they are wider than a 1100-pixel caption with long CPU names.
    lines.push_back(this_machine_text());
    lines.push_back(other_machine_text(other));
    const std::string source = other.estimate ? " (from published figures by a model: core/gpu_model/gpu_estimate.h)"
                                              : " (gpulab " + other.version + ", from " +
                                                    std::filesystem::path(other.path).filename().string() + ")";
    lines.push_back(mismatch.empty() ? what + source : mismatch);
    return lines;
}

void draw_compare_legend(const core::ImportedMachine& other, CompareSwatch swatch, const std::string& mismatch,
                         float width) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    const ImU32 c = IM_COL32(210, 210, 210, 255);
    const std::string texts[2] = {this_machine_text(), other_machine_text(other)};
    for (int i = 0; i < 2; ++i) {
        float room = width;
        if (swatch != CompareSwatch::None) {
            const ImVec2 p = ImGui::GetCursorScreenPos();
            const ImVec2 a{p.x, p.y + lh * 0.15f}, b{p.x + lh * 1.6f, p.y + lh * 0.85f};
            if (swatch == CompareSwatch::Bars) {
                if (i == 0)
                    dl->AddRectFilled(a, b, c, 2.0f);
                else
                    draw_hatched_bar(dl, a, b, c);
            } else {
                const float y = p.y + lh * 0.5f;
                if (i == 0) {
                    dl->AddLine({a.x, y}, {b.x, y}, c, 2.2f);
                    dl->AddCircleFilled({(a.x + b.x) * 0.5f, y}, 2.6f, c);
                } else {
                    dl->AddLine({a.x, y}, {b.x, y}, IM_COL32(210, 210, 210, 150), 1.2f);
                    dl->AddCircle({(a.x + b.x) * 0.5f, y}, 3.2f, c, 0, 1.3f);
                }
            }
            ImGui::Dummy({lh * 1.8f, lh});
            ImGui::SameLine();
            room = std::max(width - lh * 2.2f, 40.0f);
        }
        const std::string shown = cut_to(texts[i], room);
        ImGui::TextUnformatted(shown.c_str());
        if (shown != texts[i] || i == 1) hover_tip((texts[i] + (i == 1 ? "\nfrom " + other.path : "")).c_str());
    }
    if (!mismatch.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        ImGui::TextColored(kErrorColour, "%s", mismatch.c_str());
        ImGui::PopTextWrapPos();
    }
}

std::string compare_export_note(const core::ImportedMachine& other, const std::string& mismatch) {
    return "; compared with " + other_machine_text(other) + (mismatch.empty() ? "" : " (" + mismatch + ")");
}

void draw_hatched_bar(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour) {
    dl->PushClipRect(a, b, true);
    const float step = 6.0f;
    const float h = b.y - a.y;
    for (float x = a.x - h; x < b.x; x += step) dl->AddLine({x, b.y}, {x + h, a.y}, colour, 1.2f);
    dl->PopClipRect();
    dl->AddRect(a, b, colour, 2.0f, ImDrawFlags_None, 1.5f);
}

}  // namespace gpulab::app
