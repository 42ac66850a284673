// Small widgets shared by the panels: wrapped tooltips and the colours that carry meaning (error,
// a passing check, a warning, grey for "not available"). The first three follow the View menu's
// colour-blind palette (presenter_palette.h) and go with a mark or words wherever they carry meaning
// (text_status below, "match" / "MISMATCH", "available" / "unavailable").
#pragma once

#include <imgui.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "presenter_palette.h"

namespace gpulab::app {

// A status colour that reads the palette switch each time it is used: passed wherever an ImVec4 is
// taken (TextColored, PushStyleColor, GetColorU32), so every panel follows the View menu at once.
struct StatusColour {
    Status status;
    operator ImVec4() const { return to_vec4(status_rgb(status, colour_blind_palette())); }
};

// Default palette red / green / amber; colour-blind palette vermillion / sky blue / yellow.
inline constexpr StatusColour kErrorColour{Status::Error};
inline constexpr StatusColour kOkColour{Status::Ok};
inline const ImVec4 kMutedColour{0.58f, 0.58f, 0.60f, 1.0f};
inline const ImVec4 kAccentColour{0.55f, 0.78f, 1.0f, 1.0f};
// Amber: a result to take with care (a busy machine, an example rather than this machine).
inline constexpr StatusColour kWarnColour{Status::Warn};

// Tooltip for the last item, wrapped to a readable width.
inline void hover_tip(const char* text) {
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

// `text` in `colour`, cut with "..." to the width left on the current line (a status bar item on a
// narrow window) or to `max_width`, with the whole text as its tooltip when cut. Nothing when not
// even "..." fits.
inline void text_fitted(const ImVec4& colour, const std::string& text, float max_width = 1e9f) {
    const float room = std::min(ImGui::GetContentRegionAvail().x, max_width);
    std::string shown = text;
    if (ImGui::CalcTextSize(shown.c_str()).x > room) {
        while (!shown.empty() && ImGui::CalcTextSize((shown + "...").c_str()).x > room) shown.pop_back();
        if (shown.empty()) return;
        shown += "...";
    }
    ImGui::TextColored(colour, "%s", shown.c_str());
    if (shown != text) hover_tip(text.c_str());
}

// A line of text in a status colour that starts with its mark (tick, cross, warning triangle), so
// the meaning never rests on the colour alone; wrapped at the window's edge.
inline void text_status(Status s, const char* text) {
    status_mark(s);
    ImGui::PushStyleColor(ImGuiCol_Text, to_vec4(status_rgb(s, colour_blind_palette())));
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
}

// One tab of a lesson view's canvas.
template <class Panel>
struct PanelTab {
    const char* name;
    Panel panel;
    const char* tip;
};

// A view's panels as a tab bar. `current` follows the tab the student opens; `select` (set for one
// frame, e.g. when a step names a panel) brings `current` to the front instead. `draw(panel)` fills
// the open tab inside a child window with `child_flags`.
template <class Panel, std::size_t N, class Draw>
void draw_panel_tabs(const char* id, const PanelTab<Panel> (&tabs)[N], Panel& current, bool& select,
                     ImGuiWindowFlags child_flags, Draw&& draw) {
    if (!ImGui::BeginTabBar(id)) return;
    for (const PanelTab<Panel>& t : tabs) {
        const ImGuiTabItemFlags flags = select && current == t.panel ? ImGuiTabItemFlags_SetSelected : 0;
        const bool open = ImGui::BeginTabItem(t.name, nullptr, flags);
        hover_tip(t.tip);
        if (!open) continue;
        if (!select) current = t.panel;
        ImGui::BeginChild("##panel", {0, 0}, false, child_flags | ImGuiWindowFlags_NavFlattened);
        // No wrap position is pushed here for the whole panel: ImGui's TextWrapped keeps one that is
        // already set, so table cells would wrap at the panel's edge instead of their own. Long
        // lines use TextWrapped themselves (export --check-layout finds the ones that do not).
        draw(t.panel);
        ImGui::EndChild();
        ImGui::EndTabItem();
    }
    select = false;
    ImGui::EndTabBar();
}

}  // namespace gpulab::app
