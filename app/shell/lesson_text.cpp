// The lesson text with Back / Next buttons and a step indicator (dots plus "step 2 of 5"; steps
// already seen are small filled dots). Checked in the GUI screenshots.
#include <algorithm>

#include "markdown.h"
#include "widgets/paged_text.h"
#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

// Step indicator: one dot per step, the current one filled, then "step 2 of 5". Shared with the
// presenter's header, which draws it with larger dots.
void Shell::draw_step_progress(float r) {
    const core::Lesson* l = lesson();
    const int steps = l ? static_cast<int>(l->steps.size()) : 0;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float gap = r * 3.2f;
    for (int i = 0; i < steps; ++i) {
        ImVec2 c{p.x + r + gap * static_cast<float>(i), p.y + ImGui::GetFontSize() * 0.5f};
        if (i == step_index_)
            dl->AddCircleFilled(c, r, ImGui::ColorConvertFloat4ToU32(kAccentColour));
        else if (i < step_index_)
            dl->AddCircleFilled(c, r * 0.6f, IM_COL32(150, 150, 150, 255));
        else
            dl->AddCircle(c, r, IM_COL32(150, 150, 150, 255), 0, std::max(1.5f, r * 0.25f));
    }
    ImGui::Dummy({gap * static_cast<float>(steps), ImGui::GetFontSize()});
    ImGui::SameLine();
    ImGui::TextColored(kMutedColour, "step %d of %d", step_index_ + 1, steps);
}

std::vector<MarkdownBlock> Shell::step_text_blocks(const core::LessonStep& step) const {
    std::vector<MarkdownBlock> blocks = markdown_blocks(step.body);
    if (view_)
        for (MarkdownBlock& b : markdown_blocks(view_->step_text_extra())) blocks.push_back(std::move(b));
    return blocks;
}

void Shell::draw_lesson_text() {
    const core::Lesson* l = lesson();
    if (!l) {
        ImGui::TextColored(kMutedColour, "Choose a lesson in the Lessons menu.");
        return;
    }
    if (fonts_.bold) ImGui::PushFont(fonts_.bold);
    ImGui::TextWrapped("%s", l->title.c_str());
    if (fonts_.bold) ImGui::PopFont();
    const int steps = static_cast<int>(l->steps.size());
    draw_step_progress(ImGui::GetFontSize() * 0.22f);
    ImGui::Separator();
    const float buttons_h = ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y;
    ImGui::BeginChild("##step_text", {0, -buttons_h}, false, ImGuiWindowFlags_NavFlattened);
    if (step_index_ < steps) {
        const core::LessonStep& step = l->steps[static_cast<std::size_t>(step_index_)];
        if (fonts_.bold) ImGui::PushFont(fonts_.bold);
        ImGui::PushStyleColor(ImGuiCol_Text, kAccentColour);
        ImGui::TextWrapped("%s", step.title.c_str());  // long titles wrap at large UI scales
        ImGui::PopStyleColor();
        if (fonts_.bold) ImGui::PopFont();
        ImGui::Spacing();
        // The body, then what the view adds, as blocks a page can hold; the speaker notes' header last.
        const std::vector<MarkdownBlock> blocks = step_text_blocks(step);
        const int text_parts = static_cast<int>(blocks.size());
        const bool has_notes = !step.notes.empty();
        const auto draw_part = [&](int i) {
            if (i < text_parts) {
                render_markdown_block(blocks, static_cast<std::size_t>(i), fonts_);
                return;
            }
            ImGui::Spacing();
            // Closed by default: the notes are the instructor's, not part of the lesson text.
            if (ImGui::CollapsingHeader("Speaker notes")) {
                ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
                render_markdown(step.notes, fonts_);
                ImGui::PopStyleColor();
            }
            hover_tip("Notes for the instructor from the lesson file. In presenter mode (F5), N shows them.");
        };
        const int parts = text_parts + (has_notes ? 1 : 0);
        // Open notes are read as one long text: the panel scrolls then.
        if (has_notes && ImGui::GetStateStorage()->GetInt(ImGui::GetID("Speaker notes"), 0) != 0) {
            for (int i = 0; i < parts; ++i) draw_part(i);
            text_pages_ = 1;
        } else {
            text_pages_ = draw_paged_parts(parts, draw_part, text_page_);
        }
    }
    ImGui::EndChild();
    ImGui::Separator();
    const float bw = ImGui::GetFontSize() * 6.0f;
    // BeginDisabled(flag) always pairs with EndDisabled(): the click below changes step_index_.
    ImGui::BeginDisabled(step_index_ == 0);
    if (ImGui::Button("< Back", {bw, 0})) prev_step();
    ImGui::EndDisabled();
    hover_tip("Previous step (Left arrow or Page Up)");
    ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - bw);
    const bool last = step_index_ + 1 >= steps;
    ImGui::BeginDisabled(last);
    if (ImGui::Button("Next >", {bw, 0})) next_step();
    ImGui::EndDisabled();
    hover_tip("Next step (Right arrow or Page Down). Entering a step applies its settings and may start a run.");
}

}  // namespace gpulab::app
