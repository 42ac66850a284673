// The lesson list: ready lessons are selectable; lessons still being written are greyed with a
// "coming" tag and a tooltip. Broken lesson files are listed with file:line so authors see them.
#include <set>
#include <string>

#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void Shell::draw_lesson_list() {
    for (std::size_t i = 0; i < catalog_.lessons.size(); ++i) {
        const core::Lesson& l = catalog_.lessons[i];
        ImGui::PushID(static_cast<int>(i));
        if (l.coming) {
            // The title is clipped short of the tag so the two never overlap.
            const float tag_w = ImGui::CalcTextSize("coming").x + ImGui::GetStyle().ItemSpacing.x * 2;
            const float x0 = ImGui::GetCursorPosX();
            const float avail = ImGui::GetContentRegionAvail().x;
            ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
            ImGui::Selectable(l.title.c_str(), false, ImGuiSelectableFlags_Disabled, {avail - tag_w, 0});
            const bool title_hovered = ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled);
            ImGui::PopStyleColor();
            ImGui::SameLine(x0 + avail - tag_w + ImGui::GetStyle().ItemSpacing.x);
            ImGui::TextColored({0.85f, 0.65f, 0.30f, 0.9f}, "coming");
            // The clipped title is shown whole in the tooltip, over the title or the tag.
            if (title_hovered || ImGui::IsItemHovered()) {
                std::string tip = l.title + "\n\n" + l.summary +
                                  "\n\nThis lesson is listed but its workload is not built yet.";
                ImGui::BeginTooltip();
                ImGui::PushTextWrapPos(ImGui::GetFontSize() * 24.0f);
                ImGui::TextUnformatted(tip.c_str());
                ImGui::PopTextWrapPos();
                ImGui::EndTooltip();
            }
        } else {
            if (ImGui::Selectable(l.title.c_str(), static_cast<int>(i) == lesson_index_)) select_lesson(static_cast<int>(i));
            hover_tip(l.summary.c_str());
        }
        ImGui::PopID();
    }
    if (catalog_.lessons.empty())
        ImGui::TextColored(kErrorColour, "No lessons found. Run from the source or build tree, or set GPULAB_DATA_DIR.");
    if (!catalog_.errors.empty()) {
        ImGui::Spacing();
        std::set<std::string> files;
        for (const auto& e : catalog_.errors) files.insert(e.file);
        ImGui::TextColored(kErrorColour, "%d problem(s) in %d lesson file(s), not loaded:",
                           static_cast<int>(catalog_.errors.size()), static_cast<int>(files.size()));
        for (const auto& e : catalog_.errors) {
            ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
            ImGui::TextWrapped("%s", e.to_string().c_str());
            ImGui::PopStyleColor();
        }
    }
}

}  // namespace gpulab::app
