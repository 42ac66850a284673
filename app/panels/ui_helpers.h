// Small widgets shared by the panels: wrapped tooltips and the colours that carry meaning
// (red for errors, green for a passing check, grey for "not available").
#pragma once

#include <imgui.h>

namespace gpulab::app {

inline const ImVec4 kErrorColour{1.0f, 0.38f, 0.33f, 1.0f};
inline const ImVec4 kOkColour{0.40f, 0.86f, 0.45f, 1.0f};
inline const ImVec4 kMutedColour{0.58f, 0.58f, 0.60f, 1.0f};
inline const ImVec4 kAccentColour{0.55f, 0.78f, 1.0f, 1.0f};

// Tooltip for the last item, wrapped to a readable width.
inline void hover_tip(const char* text) {
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

}  // namespace gpulab::app
