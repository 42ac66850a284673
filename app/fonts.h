// Fonts at the real pixel size of the current UI scale. When the scale changes the atlas is
// rebuilt at the new size (never FontGlobalScale, which stretches a bitmap and blurs), and the
// style is rebuilt from a fresh default and scaled once. Checked by eye in the screenshots.
#pragma once

#include <imgui.h>

#include <string>

namespace gpulab::app {

struct Fonts {
    ImFont* regular = nullptr;
    ImFont* bold = nullptr;  // null: bold text falls back to a highlight colour
    ImFont* mono = nullptr;  // null: code falls back to the regular font
    std::string note;        // which files were found, or why ImGui's default font is in use
};

inline constexpr float kBaseFontPixels = 16.0f;

// Clears `atlas` and loads DejaVu Sans (assets/fonts, then /usr/share/fonts) at base * scale.
Fonts load_fonts(ImFontAtlas* atlas, float scale);

// The current context's style: dark, rounded a little, then ScaleAllSizes(scale).
void apply_style(float scale);

// Rebuilds fonts and style and re-uploads the font texture through the OpenGL3 backend.
Fonts rebuild_fonts_and_style(float scale);

}  // namespace gpulab::app
