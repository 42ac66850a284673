// The Markdown subset renderer: see markdown.h. Inline runs are laid out word by word with
// SameLine so bold and code can sit inside a wrapped paragraph (1.86 has no rich text).
#include "markdown.h"

#include <imgui.h>

#include <string>
#include <vector>

#include "widgets/paged_text.h"

namespace gpulab::app {

namespace {

enum class Style { Plain, Bold, Code };

struct Run {
    std::string text;
    Style style;
};

// Splits one paragraph into styled runs; an unmatched marker stays as literal text.
std::vector<Run> parse_inline(std::string_view s) {
    std::vector<Run> runs;
    std::string plain;
    for (std::size_t i = 0; i < s.size();) {
        if (s.compare(i, 2, "**") == 0) {
            std::size_t end = s.find("**", i + 2);
            if (end != std::string_view::npos) {
                if (!plain.empty()) runs.push_back({std::move(plain), Style::Plain}), plain.clear();
                runs.push_back({std::string(s.substr(i + 2, end - i - 2)), Style::Bold});
                i = end + 2;
                continue;
            }
        } else if (s[i] == '`') {
            std::size_t end = s.find('`', i + 1);
            if (end != std::string_view::npos) {
                if (!plain.empty()) runs.push_back({std::move(plain), Style::Plain}), plain.clear();
                runs.push_back({std::string(s.substr(i + 1, end - i - 1)), Style::Code});
                i = end + 1;
                continue;
            }
        }
        plain += s[i++];
    }
    if (!plain.empty()) runs.push_back({std::move(plain), Style::Plain});
    return runs;
}

// Lays out runs word by word from the current cursor, wrapping at the window's right edge.
void draw_runs(const std::vector<Run>& runs, const Fonts& fonts, float indent_x) {
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    const ImVec4 bold_colour{1.0f, 0.86f, 0.55f, 1.0f};
    bool line_start = true;
    bool pending_space = false;
    for (const Run& run : runs) {
        ImFont* font = run.style == Style::Bold && fonts.bold   ? fonts.bold
                       : run.style == Style::Code && fonts.mono ? fonts.mono
                                                               : nullptr;
        if (font) ImGui::PushFont(font);
        const float space_w = ImGui::CalcTextSize(" ").x;
        // Code stays one unit (it is usually a short identifier) unless it is longer than a whole
        // line (a formula in a kernel puzzle's statement): then it too splits at spaces. Prose
        // always splits at spaces.
        std::vector<std::string> words;
        const float line_w = right - (ImGui::GetWindowPos().x + indent_x);
        if (run.style == Style::Code && ImGui::CalcTextSize(run.text.c_str()).x <= line_w) {
            if (!run.text.empty() && run.text.front() == ' ') pending_space = true;
            words.push_back(run.text);
        } else if (run.style == Style::Code) {
            // Each piece keeps the space after it, so the code's background runs on unbroken.
            std::string w;
            for (char c : run.text) {
                w += c;
                if (c == ' ') words.push_back(std::move(w)), w.clear();
            }
            if (!w.empty()) words.push_back(std::move(w));
        } else {
            std::string w;
            if (!run.text.empty() && run.text.front() == ' ') pending_space = true;
            for (char c : run.text) {
                if (c == ' ' || c == '\n') {
                    if (!w.empty()) words.push_back(std::move(w)), w.clear();
                    words.emplace_back();  // marks a space
                } else {
                    w += c;
                }
            }
            if (!w.empty()) words.push_back(std::move(w));
        }
        for (const std::string& w : words) {
            if (w.empty()) {
                pending_space = true;
                continue;
            }
            const float ww = ImGui::CalcTextSize(w.c_str()).x;
            if (!line_start) {
                ImGui::SameLine(0.0f, pending_space ? space_w : 0.0f);
                if (ImGui::GetCursorScreenPos().x + ww > right) {
                    ImGui::NewLine();
                    ImGui::SetCursorPosX(indent_x);
                    note_line_top();
                }
            } else {
                note_line_top();
            }
            if (run.style == Style::Code) {
                const ImVec2 p = ImGui::GetCursorScreenPos();
                const ImVec2 sz = ImGui::CalcTextSize(w.c_str());
                ImGui::GetWindowDrawList()->AddRectFilled({p.x - 2, p.y}, {p.x + sz.x + 2, p.y + sz.y},
                                                          IM_COL32(60, 64, 74, 255), 3.0f);
                ImGui::TextColored({0.70f, 0.90f, 1.0f, 1.0f}, "%s", w.c_str());
            } else if (run.style == Style::Bold) {
                ImGui::TextColored(fonts.bold ? ImVec4{1, 1, 1, 1} : bold_colour, "%s", w.c_str());
            } else {
                ImGui::TextUnformatted(w.c_str());
            }
            line_start = false;
            pending_space = false;
        }
        if (font) ImGui::PopFont();
    }
}

}  // namespace

std::vector<MarkdownBlock> markdown_blocks(std::string_view text) {
    std::vector<MarkdownBlock> blocks;
    std::string para;
    auto flush = [&] {
        if (!para.empty()) blocks.push_back({false, std::move(para)}), para.clear();
    };
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
        std::string_view trimmed = line;
        while (!trimmed.empty() && trimmed.front() == ' ') trimmed.remove_prefix(1);
        if (trimmed.empty()) {
            flush();
        } else if (trimmed.size() >= 2 && (trimmed[0] == '-' || trimmed[0] == '*') && trimmed[1] == ' ') {
            flush();
            blocks.push_back({true, std::string(trimmed.substr(2))});
        } else if (!blocks.empty() && blocks.back().bullet && para.empty() && line.size() > trimmed.size()) {
            blocks.back().text += " " + std::string(trimmed);  // indented continuation of a bullet
        } else {
            if (!para.empty()) para += ' ';
            para += std::string(trimmed);
        }
        pos = end + 1;
    }
    flush();
    return blocks;
}

void render_markdown_block(const std::vector<MarkdownBlock>& blocks, std::size_t i, const Fonts& fonts) {
    if (i >= blocks.size()) return;
    const MarkdownBlock& block = blocks[i];
    const int gap = i == 0 ? 0 : (blocks[i - 1].bullet ? 0 : 1) + (block.bullet ? 0 : 1);
    for (int g = 0; g < gap; ++g) ImGui::Spacing();
    if (block.bullet) {
        const float bullet_indent = ImGui::GetFontSize() * 1.2f;
        const float x0 = ImGui::GetCursorPosX();
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float r = ImGui::GetFontSize() * 0.16f;
        ImGui::GetWindowDrawList()->AddCircleFilled({p.x + bullet_indent * 0.45f, p.y + ImGui::GetFontSize() * 0.55f}, r,
                                                    ImGui::GetColorU32(ImGuiCol_Text));
        ImGui::SetCursorPosX(x0 + bullet_indent);
        draw_runs(parse_inline(block.text), fonts, x0 + bullet_indent);
    } else {
        draw_runs(parse_inline(block.text), fonts, ImGui::GetCursorPosX());
    }
}

void render_markdown(std::string_view text, const Fonts& fonts) {
    const std::vector<MarkdownBlock> blocks = markdown_blocks(text);
    for (std::size_t i = 0; i < blocks.size(); ++i) render_markdown_block(blocks, i, fonts);
}

}  // namespace gpulab::app
