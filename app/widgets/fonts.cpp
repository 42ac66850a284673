// Font loading and crisp rescaling: see fonts.h.
#include "fonts.h"

#include <imgui_impl_opengl3.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "render/resources.h"
#include "font_check.h"

namespace gpulab::app {

namespace {

std::string find_font(const char* file) {
    std::filesystem::path p = find_resource(std::string("assets/fonts/") + file);
    if (!p.empty()) return p.string();
    std::filesystem::path sys = std::filesystem::path("/usr/share/fonts/truetype/dejavu") / file;
    std::error_code ec;
    if (std::filesystem::exists(sys, ec)) return sys.string();
    return {};
}

// A font problem on stderr once per run (fonts reload at every scale change).
void report_font_note_once(const std::string& note) {
    static std::string said;
    if (note == said) return;
    said = note;
    std::fprintf(stderr, "gpulab: %s\n", note.c_str());
}

// The font at `path` added to the atlas from its checked bytes (font_check.h), or null with the
// problem appended to `note`. ImGui frees the copy it is given when the atlas is cleared.
ImFont* add_checked_font(ImFontAtlas* atlas, const std::string& path, float px, const ImFontConfig& cfg,
                         const ImWchar* ranges, std::string& note) {
    if (path.empty()) return nullptr;
    const FontFile f = read_checked_font(path);
    if (!f.problem.empty()) {
        note += (note.empty() ? "" : "; ") + f.problem;
        return nullptr;
    }
    void* copy = IM_ALLOC(f.bytes.size());
    std::memcpy(copy, f.bytes.data(), f.bytes.size());
    return atlas->AddFontFromMemoryTTF(copy, static_cast<int>(f.bytes.size()), px, &cfg, ranges);
}

}  // namespace

Fonts load_fonts(ImFontAtlas* atlas, float scale) {
    Fonts f;
    atlas->Clear();
    const float px = kBaseFontPixels * scale;
    ImFontConfig cfg;
    cfg.OversampleH = 2;  // sharper glyph edges at fractional positions, cheap at these sizes
    // Latin, Greek (alpha in "leaky ReLU alpha") and a few symbols: arrows, times, minus.
    static const ImWchar kRanges[] = {0x0020, 0x00FF, 0x0370, 0x03FF, 0x2010, 0x2027, 0x2190, 0x21FF,
                                      0x2200, 0x22FF, 0x25A0, 0x25FF, 0};
    std::string problems;
    const std::string regular = find_font("DejaVuSans.ttf");
    f.regular = add_checked_font(atlas, regular, px, cfg, kRanges, problems);
    if (!f.regular) {
        ImFontConfig def;
        def.SizePixels = 13.0f * scale;
        f.regular = atlas->AddFontDefault(&def);
        f.note = (problems.empty() ? std::string("DejaVuSans.ttf not found in assets/fonts or /usr/share/fonts")
                                   : problems) + ": using ImGui's built-in font";
        report_font_note_once(f.note);
        return f;
    }
    f.note = "font: " + regular;
    const std::string bold = find_font("DejaVuSans-Bold.ttf");
    f.bold = add_checked_font(atlas, bold, px, cfg, kRanges, problems);
    const std::string mono = find_font("DejaVuSansMono.ttf");
    f.mono = add_checked_font(atlas, mono, px * 0.95f, cfg, kRanges, problems);
    if (f.bold) f.heading = add_checked_font(atlas, bold, px * 1.5f, cfg, kRanges, problems);
    if (!problems.empty()) {
        f.note += "; " + problems;
        report_font_note_once(problems + ": that style falls back to the regular font");
    }
    return f;
}

void apply_style(float scale, core::Theme theme) {
    ImGuiStyle fresh;
    ImGui::StyleColorsDark(&fresh);
    fresh.WindowRounding = 4.0f;
    fresh.FrameRounding = 3.0f;
    fresh.GrabRounding = 3.0f;
    fresh.WindowPadding = {10.0f, 8.0f};
    fresh.ItemSpacing = {8.0f, 6.0f};
    fresh.WindowBorderSize = 1.0f;
    fresh.Colors[ImGuiCol_WindowBg] = {0.10f, 0.105f, 0.12f, 1.0f};
    fresh.Colors[ImGuiCol_TitleBg] = {0.14f, 0.16f, 0.20f, 1.0f};
    fresh.Colors[ImGuiCol_TitleBgActive] = {0.18f, 0.24f, 0.34f, 1.0f};
    if (theme == core::Theme::Presenter) {
        // Projectors wash out dark greys and thin lines: pure black panels, pure white text,
        // borders and separators bright enough to survive a lit room.
        fresh.Colors[ImGuiCol_WindowBg] = {0.0f, 0.0f, 0.0f, 1.0f};
        fresh.Colors[ImGuiCol_ChildBg] = {0.0f, 0.0f, 0.0f, 0.0f};
        fresh.Colors[ImGuiCol_PopupBg] = {0.04f, 0.04f, 0.05f, 0.98f};
        fresh.Colors[ImGuiCol_Text] = {1.0f, 1.0f, 1.0f, 1.0f};
        fresh.Colors[ImGuiCol_TextDisabled] = {0.75f, 0.75f, 0.78f, 1.0f};
        fresh.Colors[ImGuiCol_Border] = {0.62f, 0.66f, 0.75f, 1.0f};
        fresh.Colors[ImGuiCol_Separator] = {0.62f, 0.66f, 0.75f, 1.0f};
        fresh.Colors[ImGuiCol_TitleBg] = {0.0f, 0.0f, 0.0f, 1.0f};
        fresh.Colors[ImGuiCol_TitleBgActive] = {0.0f, 0.0f, 0.0f, 1.0f};
        fresh.Colors[ImGuiCol_FrameBg] = {0.16f, 0.18f, 0.24f, 1.0f};
        fresh.Colors[ImGuiCol_Button] = {0.10f, 0.32f, 0.62f, 1.0f};
        fresh.WindowBorderSize = 2.0f;
        fresh.FrameBorderSize = 1.0f;
        fresh.WindowRounding = 0.0f;
    }
    // Scaling a fresh style each time avoids compounding rounding errors across changes.
    fresh.ScaleAllSizes(scale);
    ImGui::GetStyle() = fresh;
}

Fonts rebuild_fonts_and_style(float scale, core::Theme theme) {
    Fonts f = load_fonts(ImGui::GetIO().Fonts, scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
    apply_style(scale, theme);
    return f;
}

}  // namespace gpulab::app
