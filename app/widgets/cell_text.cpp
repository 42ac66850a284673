// See cell_text.h. The cell's room and its name come from ImGui's current table
// (imgui_internal.h, part of Debian's libimgui-dev): the public API has no "am I in a cell".
#include "cell_text.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace gpulab::app {

namespace {

bool g_notes_on = false;
std::vector<CellTextNote> g_notes;

void vcell_text(const ImVec4* colour, const char* fmt, va_list args) {
    char buf[1024];
    const int n = std::vsnprintf(buf, sizeof buf, fmt, args);
    const std::string_view text(buf, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
    colour ? cell_text(*colour, text) : cell_text(text);
}

}  // namespace

void set_cell_text_notes(bool on) {
    g_notes_on = on;
    if (!on) g_notes.clear();
}

void note_cell_text(std::string_view text) {
    if (!g_notes_on || text.empty()) return;
    ImGuiTable* table = ImGui::GetCurrentTable();
    if (!table || table->CurrentColumn < 0) return;
    // The same slack as the panel check (layout_check.cpp): a few pixels of overhang cut nothing.
    const float slack = ImGui::GetFontSize() * 0.5f;
    const float wider = ImGui::CalcTextSize(text.data(), text.data() + text.size()).x - ImGui::GetContentRegionAvail().x;
    if (wider <= slack) return;
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    CellTextNote note;
    note.window = table->InnerWindow ? table->InnerWindow->Name : "";
    note.table_id = table->ID;
    note.column = table->CurrentColumn;
    note.row = table->CurrentRow;
    note.column_name = ImGui::TableGetColumnName(table, table->CurrentColumn);
    note.text = std::string(text);
    note.wider_px = wider;
    note.frame = g.FrameCount;
    // The export draws several frames per step: keep one note per cell and text.
    const auto same = [&](const CellTextNote& o) {
        return o.frame == note.frame && o.table_id == note.table_id && o.column == note.column && o.row == note.row &&
               o.text == note.text;
    };
    if (std::none_of(g_notes.begin(), g_notes.end(), same)) g_notes.push_back(std::move(note));
}

std::vector<CellTextNote> take_cell_text_notes() {
    std::vector<CellTextNote> out;
    if (const ImGuiContext* g = ImGui::GetCurrentContext()) {
        // After Render() the frame count is still the frame just drawn.
        for (CellTextNote& n : g_notes)
            if (n.frame == g->FrameCount) out.push_back(std::move(n));
    }
    g_notes.clear();
    return out;
}

void cell_text(std::string_view text) {
    note_cell_text(text);
    ImGui::TextUnformatted(text.data(), text.data() + text.size());
}

void cell_text(const ImVec4& colour, std::string_view text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    cell_text(text);
    ImGui::PopStyleColor();
}

void cell_textf(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vcell_text(nullptr, fmt, args);
    va_end(args);
}

void cell_textf(const ImVec4& colour, const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vcell_text(&colour, fmt, args);
    va_end(args);
}

}  // namespace gpulab::app
