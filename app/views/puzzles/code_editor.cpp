// See code_editor.h. The layout: a child window with no padding scrolls both ways; inside it the
// gutter is drawn on the child's draw list (held at the left edge when the code scrolls sideways)
// and the text field sits right of it, as tall and as wide as its text (ImGui's field uses the font
// size as its line height and FramePadding above the first line, so line i is at FramePadding.y +
// (i - 1) * font size in both). The field's own background and text are made transparent: the line
// tints and the coloured text (cuda_syntax.h) are drawn underneath at the positions ImGui's field
// uses, and the cursor with them, since ImGui 1.86's field draws its text in one colour.
#include "code_editor.h"

#include <imgui_internal.h>  // ClearActiveID: Escape must leave the field without reverting it

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr int kTabWidth = 4;

int count_lines(const std::string& s) { return 1 + static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// Byte offset of the start of `line` (1-based) in `text` of `len` bytes; the end when past it.
int line_start(const char* text, int len, int line) {
    int at = 0;
    for (int l = 1; l < line && at < len; ++at)
        if (text[at] == '\n') ++l;
    return std::min(at, len);
}

// Tabs as spaces to the next multiple of kTabWidth columns (a file loaded from disk).
std::string expand_tabs(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    int column = 0;
    for (char c : s) {
        if (c == '\t') {
            const int n = kTabWidth - column % kTabWidth;
            out.append(static_cast<std::size_t>(n), ' ');
            column += n;
            continue;
        }
        out += c;
        if (c == '\n') column = 0;
        else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++column;  // not a UTF-8 continuation byte
    }
    return out;
}

// The colour of each kind, for a dark or a light background (the presenter's light theme).
ImU32 token_colour(CudaToken kind, bool dark) {
    switch (kind) {
        case CudaToken::Comment: return dark ? IM_COL32(120, 170, 110, 255) : IM_COL32(40, 120, 40, 255);
        case CudaToken::String: return dark ? IM_COL32(225, 160, 110, 255) : IM_COL32(165, 70, 20, 255);
        case CudaToken::Preprocessor: return dark ? IM_COL32(200, 140, 220, 255) : IM_COL32(130, 40, 150, 255);
        case CudaToken::Number: return dark ? IM_COL32(180, 210, 150, 255) : IM_COL32(20, 110, 90, 255);
        case CudaToken::Keyword: return dark ? IM_COL32(110, 170, 255, 255) : IM_COL32(20, 70, 190, 255);
        case CudaToken::Type: return dark ? IM_COL32(90, 200, 190, 255) : IM_COL32(10, 120, 130, 255);
        case CudaToken::Builtin: return dark ? IM_COL32(240, 210, 100, 255) : IM_COL32(150, 100, 0, 255);
        case CudaToken::Plain: break;
    }
    return ImGui::GetColorU32(ImGuiCol_Text);
}

}  // namespace

void CodeEditor::set_text(std::string text) {
    text_ = expand_tabs(text);
    ++generation_;
    cursor_byte_ = 0;
    cursor_line_ = 0;
    active_ = false;
}

void CodeEditor::go_to_line(int line) {
    jump_line_ = std::max(1, line);
    jump_scroll_ = true;
}

int CodeEditor::callback(ImGuiInputTextCallbackData* data) {
    return static_cast<CodeEditor*>(data->UserData)->on_callback(data);
}

int CodeEditor::on_callback(ImGuiInputTextCallbackData* data) {
    if (data->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        // ImGui hands every change to the caller's buffer through here (imgui_stdlib's way).
        text_.resize(static_cast<std::size_t>(data->BufTextLen));
        data->Buf = text_.data();
        return 0;
    }
    // Tab (or pasted text with tabs): spaces to the next tab stop. ImGui's undo records the tab as
    // one character, so Ctrl+Z after a Tab takes back one of its spaces.
    for (int i = 0; i < data->BufTextLen; ++i) {
        if (data->Buf[i] != '\t') continue;
        int column = 0;
        for (int j = i - 1; j >= 0 && data->Buf[j] != '\n'; --j)
            if ((static_cast<unsigned char>(data->Buf[j]) & 0xC0) != 0x80) ++column;
        const int n = kTabWidth - column % kTabWidth;
        const int cursor = data->CursorPos;
        data->DeleteChars(i, 1);
        data->InsertChars(i, "    ", "    " + n);
        // InsertChars moves a cursor at the insertion point; one before the tab stays put.
        data->CursorPos = cursor > i ? cursor - 1 + n : cursor;
        data->SelectionStart = data->SelectionEnd = data->CursorPos;
    }
    if (jump_line_ > 0) {
        data->CursorPos = line_start(data->Buf, data->BufTextLen, jump_line_);
        data->SelectionStart = data->SelectionEnd = data->CursorPos;
        jump_line_ = 0;
    }
    cursor_byte_ = data->CursorPos;
    return 0;
}

void CodeEditor::lay_out_text() {
    if (text_ == laid_out_text_ && ImGui::GetFontSize() == laid_out_font_ && !spans_.empty()) return;
    laid_out_text_ = text_;
    laid_out_font_ = ImGui::GetFontSize();
    spans_ = cuda_spans(text_);
    longest_line_w_ = 0.0f;
    for (std::size_t b = 0; b <= text_.size();) {
        const std::size_t e = std::min(text_.find('\n', b), text_.size());
        longest_line_w_ = std::max(longest_line_w_, ImGui::CalcTextSize(text_.data() + b, text_.data() + e).x);
        b = e + 1;
    }
}

CodeEditor::Frame CodeEditor::draw(const char* id, ImVec2 size, ImFont* mono, bool read_only,
                                   const std::vector<EditorMark>& marks) {
    Frame frame;
    ImGuiIO& io = ImGui::GetIO();
    ImGui::PushID(id);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, {0, 0});
    const bool open = ImGui::BeginChild("##scroll", size, true, ImGuiWindowFlags_NavFlattened | ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PopStyleVar();
    if (!open) {
        ImGui::EndChild();
        ImGui::PopID();
        return frame;
    }
    if (mono) ImGui::PushFont(mono);
    const ImGuiStyle& st = ImGui::GetStyle();
    const float fs = ImGui::GetFontSize();
    const float pad_y = st.FramePadding.y;
    const int lines = count_lines(text_);
    int digits = 2;
    for (int n = lines; n >= 100; n /= 10) ++digits;
    const float char_w = ImGui::CalcTextSize("0").x;
    const float mark_w = std::max(4.0f, fs * 0.45f);
    const float gutter_w = std::floor(mark_w + char_w * static_cast<float>(digits + 1) + fs * 0.3f);
    const float visible_h = ImGui::GetWindowHeight() - (ImGui::GetScrollMaxX() > 0.0f ? st.ScrollbarSize : 0.0f);
    const float visible_w = ImGui::GetWindowWidth() - (ImGui::GetScrollMaxY() > 0.0f ? st.ScrollbarSize : 0.0f);
    // As wide as the longest line and two more characters, so the field never scrolls sideways on
    // its own (a line typed longer widens it next frame); the child scrolls instead, with a bar.
    lay_out_text();
    const float field_w =
        std::max(visible_w - gutter_w - 2.0f, longest_line_w_ + st.FramePadding.x * 2.0f + char_w * 2.0f);
    const float avail_w = gutter_w + field_w;
    // One empty line under the text, so the field never needs its own scrolling.
    const float field_h = std::max(visible_h - 2.0f, static_cast<float>(lines + 1) * fs + pad_y * 2.0f);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float scroll_y = ImGui::GetScrollY();
    const float scroll_x = ImGui::GetScrollX();
    const float gutter_x = o.x + scroll_x;  // the gutter stays at the left edge
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const auto line_y = [&](int line) { return o.y + pad_y + static_cast<float>(line - 1) * fs; };

    // Background, gutter, tinted lines.
    dl->AddRectFilled(o, {o.x + avail_w, o.y + field_h}, ImGui::GetColorU32(ImGuiCol_FrameBg));
    const ImU32 error_rgb = ImGui::GetColorU32(static_cast<ImVec4>(kErrorColour));
    const ImU32 warn_rgb = ImGui::GetColorU32(static_cast<ImVec4>(kWarnColour));
    for (const EditorMark& m : marks) {
        if (m.line < 1 || m.line > lines) continue;
        const ImVec4 c = m.error ? static_cast<ImVec4>(kErrorColour) : static_cast<ImVec4>(kWarnColour);
        dl->AddRectFilled({o.x + gutter_w, line_y(m.line)}, {o.x + avail_w, line_y(m.line) + fs},
                          ImGui::GetColorU32({c.x, c.y, c.z, 0.22f}));
    }
    dl->AddRectFilled({gutter_x, o.y}, {gutter_x + gutter_w, o.y + field_h}, ImGui::GetColorU32(ImGuiCol_FrameBg));
    dl->AddRectFilled({gutter_x, o.y}, {gutter_x + gutter_w, o.y + field_h}, IM_COL32(0, 0, 0, 70));
    // Line numbers of the visible lines, the cursor's brighter; marks left of them.
    const int first = std::max(1, static_cast<int>((scroll_y - pad_y) / fs));
    const int last = std::min(lines, first + static_cast<int>(visible_h / fs) + 2);
    const ImVec2 mouse = io.MousePos;
    const bool hovered = ImGui::IsWindowHovered();
    for (int line = first; line <= last; ++line) {
        char num[16];
        std::snprintf(num, sizeof num, "%d", line);
        const float y = line_y(line);
        const float w = ImGui::CalcTextSize(num).x;
        const bool current = active_ && line == cursor_line_ + 1;
        dl->AddText({gutter_x + gutter_w - w - char_w * 0.6f, y},
                    current ? IM_COL32(235, 235, 235, 255) : ImGui::GetColorU32(kMutedColour), num);
        bool any = false, error = false;
        std::string tip;
        for (const EditorMark& m : marks) {
            if (m.line != line) continue;
            any = true;
            error = error || m.error;
            tip += (tip.empty() ? "" : "\n\n") + m.message;
        }
        if (any) {
            const float ms = std::min(mark_w, fs * 0.6f);
            const ImVec2 a{gutter_x + 2.0f, y + (fs - ms) * 0.5f};
            dl->AddRectFilled(a, {a.x + ms, a.y + ms}, error ? error_rgb : warn_rgb, ms * 0.2f);
        }
        const bool over = hovered && mouse.x >= gutter_x && mouse.x < gutter_x + gutter_w && mouse.y >= y && mouse.y < y + fs;
        if (over && any) {
            if (mono) ImGui::PopFont();
            ImGui::BeginTooltip();
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
            ImGui::Text("line %d", line);
            ImGui::TextUnformatted(tip.c_str());
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
            if (mono) ImGui::PushFont(mono);
        }
        if (over && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) go_to_line(line);
    }

    // The field. Its ID carries the text's generation: a replaced text is a new field.
    char label[32];
    std::snprintf(label, sizeof label, "##code%d", generation_);
    if (active_ && ImGui::IsKeyPressed(io.KeyMap[ImGuiKey_Escape], false)) {
        // ImGui 1.86 would put back the text the field had when it was clicked: all of that typing.
        ImGui::ClearActiveID();
        active_ = false;
    }
    if (active_ && io.KeyCtrl &&
        (ImGui::IsKeyPressed(io.KeyMap[ImGuiKey_Enter], false) || ImGui::IsKeyPressed(io.KeyMap[ImGuiKey_KeyPadEnter], false)))
        frame.run_keys = true;  // ImGui ends the editing itself on Ctrl+Enter; the cursor comes back next frame
    if (refocus_ || (jump_line_ > 0 && !read_only)) {
        ImGui::SetCursorScreenPos({o.x + gutter_w, o.y});
        ImGui::SetKeyboardFocusHere();
        refocus_ = false;
    }
    ImGui::SetCursorScreenPos({o.x + gutter_w, o.y});
    ImGui::PushStyleColor(ImGuiCol_FrameBg, IM_COL32(0, 0, 0, 0));
    ImGui::PushStyleColor(ImGuiCol_Text, IM_COL32(0, 0, 0, 0));  // drawn coloured underneath
    ImGui::PushStyleVar(ImGuiStyleVar_FrameBorderSize, 0.0f);
    ImGuiInputTextFlags flags = ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackAlways |
                                ImGuiInputTextFlags_CallbackResize;
    if (read_only) flags |= ImGuiInputTextFlags_ReadOnly;
    frame.changed = ImGui::InputTextMultiline(label, text_.data(), text_.capacity() + 1, {field_w, field_h}, flags,
                                              &CodeEditor::callback, this) &&
                    !read_only;
    active_ = ImGui::IsItemActive();
    // ImGui shifts an active field's text left by its own scroll (never, while the field is as wide
    // as its text; a long paste can for a frame): the colours follow it.
    const ImGuiInputTextState* field_state = active_ ? ImGui::GetInputTextState(ImGui::GetItemID()) : nullptr;
    const float field_scroll = field_state ? field_state->ScrollX : 0.0f;
    ImGui::PopStyleVar();
    ImGui::PopStyleColor(2);
    if (frame.run_keys) refocus_ = true;

    // The text in colour, line by line (visible lines only), clipped right of the gutter.
    const float text_x = o.x + gutter_w + st.FramePadding.x - field_scroll;
    const bool dark = [] {
        const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_FrameBg];
        return 0.299f * bg.x + 0.587f * bg.y + 0.114f * bg.z < 0.5f;
    }();
    const ImVec2 win = ImGui::GetWindowPos();
    dl->PushClipRect({gutter_x + gutter_w, win.y}, {win.x + visible_w, win.y + visible_h}, true);
    {
        const int first_line = std::max(1, static_cast<int>((scroll_y - pad_y) / fs));
        const int last_line = first_line + static_cast<int>(visible_h / fs) + 2;
        int line = 1;
        float x = text_x;
        for (const CudaSpan& span : spans_) {
            if (line > last_line) break;
            const char* b = text_.data() + span.begin;
            const char* e = text_.data() + span.end;
            const bool ends_line = e[-1] == '\n';
            if (ends_line) --e;
            if (line >= first_line && e > b) {  // lines above the view are skipped without measuring
                dl->AddText({x, line_y(line)}, token_colour(span.kind, dark), b, e);
                x += ImGui::CalcTextSize(b, e).x;
            }
            if (ends_line) {
                ++line;
                x = text_x;
            }
        }
    }
    // The cursor, which ImGui draws in the (now transparent) text colour; it blinks as ImGui's does.
    float cursor_x = 0.0f;
    if (active_ && field_state) {
        const int upto = std::clamp(cursor_byte_, 0, static_cast<int>(text_.size()));
        const std::size_t bol = text_.rfind('\n', upto > 0 ? static_cast<std::size_t>(upto - 1) : 0);
        const std::size_t from = (upto == 0 || bol == std::string::npos) ? 0 : bol + 1;
        const int line = static_cast<int>(std::count(text_.begin(), text_.begin() + upto, '\n')) + 1;
        cursor_x = text_x + ImGui::CalcTextSize(text_.data() + from, text_.data() + upto).x;
        const bool shown = !io.ConfigInputTextCursorBlink || field_state->CursorAnim <= 0.0f ||
                           std::fmod(field_state->CursorAnim, 1.20f) <= 0.80f;
        if (shown)
            dl->AddLine({cursor_x, line_y(line)}, {cursor_x, line_y(line) + fs - 1.0f}, ImGui::GetColorU32(ImGuiCol_Text));
    }
    dl->PopClipRect();
    // Keep the cursor's column in view sideways as it moves (the wheel and the bar scroll freely).
    if (active_ && field_state) {
        const float left = gutter_x + gutter_w + char_w, right = win.x + visible_w - char_w * 2.0f;
        if (cursor_x < left) ImGui::SetScrollX(std::max(0.0f, scroll_x - (left - cursor_x) - field_w * 0.1f));
        else if (cursor_x > right) ImGui::SetScrollX(scroll_x + (cursor_x - right) + char_w * 8.0f);
    }

    // Keep the cursor's line in view as it moves (typing, arrows, a jump); the wheel scrolls freely.
    if (active_) {
        const int upto = std::clamp(cursor_byte_, 0, static_cast<int>(text_.size()));
        const int line = static_cast<int>(std::count(text_.begin(), text_.begin() + upto, '\n'));
        if (line != cursor_line_ || frame.changed) {
            const float y = pad_y + static_cast<float>(line) * fs;
            const float sy = ImGui::GetScrollY();
            if (y < sy) ImGui::SetScrollY(y - pad_y);
            else if (y + fs + pad_y > sy + visible_h) ImGui::SetScrollY(y + fs + pad_y * 2.0f - visible_h);
        }
        cursor_line_ = line;
    }
    if (jump_scroll_) {
        const float y = pad_y + static_cast<float>(std::max(0, (jump_line_ > 0 ? jump_line_ : cursor_line_ + 1) - 1)) * fs;
        if (y < scroll_y || y + fs > scroll_y + visible_h) ImGui::SetScrollY(std::max(0.0f, y - visible_h * 0.3f));
        jump_scroll_ = false;
    }
    if (read_only) jump_line_ = 0;  // the read-only text scrolls to the line; no cursor to move
    if (mono) ImGui::PopFont();
    ImGui::EndChild();
    ImGui::PopID();
    return frame;
}

}  // namespace gpulab::app
