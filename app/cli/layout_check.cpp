// See layout_check.h. ImGui's internal window list is the one place that knows each window's
// scroll range after a frame, and its table pool each column's widest content; imgui_internal.h is
// part of Debian's libimgui-dev.
#include "layout_check.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "widgets/cell_text.h"

namespace gpulab::app {

namespace {

// Windows whose content is not a panel's: tooltips and popups size themselves to their content.
bool sized_to_content(const ImGuiWindow* w) {
    return w->Flags & (ImGuiWindowFlags_Tooltip | ImGuiWindowFlags_Popup | ImGuiWindowFlags_ChildMenu);
}

std::string px(float v) { return std::to_string(static_cast<int>(std::lround(v))); }

std::string column_label(const char* name, int column) {
    if (!name || !*name) return std::to_string(column + 1);
    std::string s(1, '\'');
    s += name;
    s += '\'';
    return s;
}

}  // namespace

std::vector<LayoutOverflow> layout_overflows() {
    std::vector<LayoutOverflow> out;
    const ImGuiContext* g = ImGui::GetCurrentContext();
    if (!g) return out;
    for (const ImGuiWindow* w : g->Windows) {
        if (!w->WasActive || w->Hidden) continue;
        // Tooltips and popups size themselves; the main menu bar's right-aligned line reads as a
        // few pixels of overhang that draw nothing.
        if (sized_to_content(w)) continue;
        if (std::string_view(w->Name) == "##MainMenuBar") continue;
        // Half a character of slack: wrapped text and item spacing overhang by a few pixels that
        // cut nothing a reader could see.
        const float slack = ImGui::GetFontSize() * 0.5f;
        // A panel with a horizontal scroll bar (the kernel editor's long lines) is wider on purpose:
        // its bar shows the rest, nothing is cut.
        const bool sideways = (w->Flags & ImGuiWindowFlags_HorizontalScrollbar) != 0;
        const float wider = !sideways && w->ScrollMax.x > slack ? w->ScrollMax.x : 0.0f;
        const float taller = w->ScrollMax.y > 1.0f ? w->ScrollMax.y : 0.0f;
        if (wider > 0 || taller > 0) out.push_back({w->Name, wider, taller});
    }
    return out;
}

std::string describe(const LayoutOverflow& o) {
    std::string s = o.window + ":";
    if (o.wider_px > 0) s += " " + px(o.wider_px) + " px wider than the panel";
    if (o.wider_px > 0 && o.taller_px > 0) s += ",";
    if (o.taller_px > 0) s += " scrolls by " + px(o.taller_px) + " px";
    return s;
}

std::vector<CellOverflow> cell_overflows() {
    std::vector<CellOverflow> out;
    ImGuiContext* g = ImGui::GetCurrentContext();
    if (!g) return out;
    const std::vector<CellTextNote> notes = take_cell_text_notes();
    const float slack = ImGui::GetFontSize() * 0.5f;  // as for the panels above
    for (int i = 0; i < g->Tables.GetMapSize(); ++i) {
        const ImGuiTable* t = g->Tables.TryGetMapData(i);
        // Only the tables drawn in the last frame: the pool keeps every table ever drawn.
        if (!t || t->LastFrameActive != g->FrameCount || !t->InnerWindow) continue;
        const ImGuiWindow* w = t->InnerWindow;
        if (!w->WasActive || w->Hidden || sized_to_content(w)) continue;
        for (int c = 0; c < t->ColumnsCount; ++c) {
            const ImGuiTableColumn& col = t->Columns[c];
            if (!col.IsEnabled) continue;
            const char* name = ImGui::TableGetColumnName(t, c);
            // The header draws its label with "..." where it is cut: ideal is the width it wanted.
            const float header = col.ContentMaxXHeadersIdeal - col.WorkMaxX;
            if (header > slack) out.push_back({w->Name, "header " + column_label(name, c), name ? name : "", header});
            bool noted = false;
            for (const CellTextNote& n : notes) {
                if (n.table_id != t->ID || n.column != c) continue;
                noted = true;
                out.push_back({n.window, "column " + column_label(name, c) + ", row " + std::to_string(n.row), n.text,
                               n.wider_px});
            }
            // Everything the column's rows laid out, whatever drew it.
            const float body = std::max(col.ContentMaxXFrozen, col.ContentMaxXUnfrozen) - col.WorkMaxX;
            if (!noted && body > slack) out.push_back({w->Name, "column " + column_label(name, c), "", body});
        }
    }
    return out;
}

std::string describe(const CellOverflow& o) {
    std::string s = o.window + ", " + o.cell + ": " + px(o.wider_px) + " px wider than the cell";
    if (!o.text.empty()) s += ": \"" + o.text + "\"";
    return s;
}

}  // namespace gpulab::app
