// See layout_check.h. ImGui's internal window list is the one place that knows each window's
// scroll range after a frame; imgui_internal.h is part of Debian's libimgui-dev.
#include "layout_check.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>
#include <string_view>

namespace gpulab::app {

std::vector<LayoutOverflow> layout_overflows() {
    std::vector<LayoutOverflow> out;
    const ImGuiContext* g = ImGui::GetCurrentContext();
    if (!g) return out;
    for (const ImGuiWindow* w : g->Windows) {
        if (!w->WasActive || w->Hidden) continue;
        // Tooltips and popups size themselves; the main menu bar's right-aligned line reads as a
        // few pixels of overhang that draw nothing.
        if (w->Flags & (ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup | ImGuiWindowFlags_ChildMenu)) continue;
        if (std::string_view(w->Name) == "##MainMenuBar") continue;
        // Half a character of slack: wrapped text and item spacing overhang by a few pixels that
        // cut nothing a reader could see.
        const float slack = ImGui::GetFontSize() * 0.5f;
        const float wider = w->ScrollMax.x > slack ? w->ScrollMax.x : 0.0f;
        const float taller = w->ScrollMax.y > 1.0f ? w->ScrollMax.y : 0.0f;
        if (wider > 0 || taller > 0) out.push_back({w->Name, wider, taller});
    }
    return out;
}

std::string describe(const LayoutOverflow& o) {
    std::string s = o.window + ":";
    if (o.wider_px > 0) s += " " + std::to_string(static_cast<int>(std::lround(o.wider_px))) + " px wider than the panel";
    if (o.wider_px > 0 && o.taller_px > 0) s += ",";
    if (o.taller_px > 0) s += " scrolls by " + std::to_string(static_cast<int>(std::lround(o.taller_px))) + " px";
    return s;
}

}  // namespace gpulab::app
