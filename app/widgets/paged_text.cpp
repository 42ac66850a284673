// See paged_text.h. Laying the text out without showing it, and showing one stretch of it without
// the window growing a scroll bar, both need the window's cursor bookkeeping (its content size),
// which only imgui_internal.h exposes; it is part of Debian's libimgui-dev, as layout_check.cpp uses.
#include "paged_text.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <string>

#include "ui_helpers.h"

namespace gpulab::app {

namespace {

std::vector<float>* g_line_tops = nullptr;  // LineTops's list while one is alive

}  // namespace

LineTops::LineTops(std::vector<float>& tops) { g_line_tops = &tops; }
LineTops::~LineTops() { g_line_tops = nullptr; }

void note_line_top() {
    if (g_line_tops) g_line_tops->push_back(ImGui::GetCursorPosY());
}

int draw_paged_parts(int count, const std::function<void(int)>& draw_part, int& page, bool arrow_keys) {
    ImGuiWindow* window = ImGui::GetCurrentWindow();
    // Tab (keyboard_focus.h) must not stop at items the page does not show: the measuring pass below
    // draws every item once more with the same ID, and parts off the page are clipped, not absent.
    ImGuiContext& g = *GImGui;
    const bool scoring = g.NavMoveScoringItems;
    const ImVec2 start = ImGui::GetCursorPos();
    const ImVec2 max_before = window->DC.CursorMaxPos;
    const float avail = ImGui::GetContentRegionAvail().y;

    // Laid out clipped to nothing: every item moves the cursor as when drawn, nothing shows.
    std::vector<float> cuts, breaks;
    {
        std::vector<float> line_tops;
        LineTops recorder(line_tops);
        ImGui::PushClipRect({-2.0f, -2.0f}, {-1.0f, -1.0f}, false);
        g.NavMoveScoringItems = false;
        for (int i = 0; i < count; ++i) {
            breaks.push_back(ImGui::GetCursorPosY() - start.y);
            draw_part(i);
        }
        g.NavMoveScoringItems = scoring;
        ImGui::PopClipRect();
        for (float t : line_tops) cuts.push_back(t - start.y);
        cuts.insert(cuts.end(), breaks.begin(), breaks.end());
    }
    const float total = ImGui::GetCursorPosY() - start.y;
    ImGui::SetCursorPos(start);
    window->DC.CursorMaxPos = max_before;
    if (total <= avail) {
        page = 0;
        for (int i = 0; i < count; ++i) draw_part(i);
        return 1;
    }

    // The row that names the parts takes a line at the bottom; the page above it shows whole lines.
    const ImGuiStyle& style = ImGui::GetStyle();
    const float row_h = ImGui::GetFrameHeight() + style.ItemSpacing.y * 3.0f;
    const float page_h = std::max(avail - row_h, ImGui::GetTextLineHeightWithSpacing());
    std::sort(cuts.begin(), cuts.end());
    const std::vector<float> offsets = page_offsets(cuts, breaks, total, page_h);
    const int pages = static_cast<int>(offsets.size());
    page = std::clamp(page, 0, pages - 1);
    const float from = offsets[static_cast<std::size_t>(page)];
    const float to = page + 1 < pages ? offsets[static_cast<std::size_t>(page) + 1] : total;

    // The whole text drawn shifted up by the page's offset, clipped to the page: lines outside it
    // are skipped by ImGui's own clipping, and the window's content size is put back after.
    const ImVec2 top = ImGui::GetCursorScreenPos();
    ImGui::PushClipRect({window->ClipRect.Min.x, top.y}, {window->ClipRect.Max.x, top.y + (to - from)}, true);
    ImGui::SetCursorPosY(start.y - from);
    for (int i = 0; i < count; ++i) {
        const float part_top = breaks[static_cast<std::size_t>(i)];
        const float part_end = i + 1 < count ? breaks[static_cast<std::size_t>(i) + 1] : total;
        g.NavMoveScoringItems = scoring && part_end > from && part_top < to;
        draw_part(i);
    }
    g.NavMoveScoringItems = scoring;
    ImGui::PopClipRect();
    ImGui::SetCursorPos({start.x, start.y + page_h + style.ItemSpacing.y});
    window->DC.CursorMaxPos = max_before;

    ImGui::Separator();
    const bool more = page + 1 < pages;
    ImGui::BeginDisabled(page == 0);
    if (ImGui::ArrowButton("##text_earlier", ImGuiDir_Up)) --page;
    ImGui::EndDisabled();
    hover_tip(arrow_keys ? "The earlier part of this text (Up arrow)" : "The earlier part of this text");
    ImGui::SameLine();
    ImGui::BeginDisabled(!more);
    if (ImGui::ArrowButton("##text_more", ImGuiDir_Down)) ++page;
    ImGui::EndDisabled();
    hover_tip(arrow_keys ? "The rest of this text (Down arrow)" : "The rest of this text");
    ImGui::SameLine();
    const std::string where = "part " + std::to_string(page + 1) + " of " + std::to_string(pages) +
                              (more ? (arrow_keys ? ": more below (Down)" : ": more below")
                                    : (arrow_keys ? ", the end (Up: back)" : ", the end"));
    ImGui::TextColored(more ? kAccentColour : kMutedColour, "%s", where.c_str());
    return pages;
}

}  // namespace gpulab::app
