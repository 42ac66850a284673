// Fonts at the real pixel size of the current UI scale. When the scale changes the atlas is
// rebuilt at the new size (never FontGlobalScale, which stretches a bitmap and blurs), and the
// style is rebuilt from a fresh default and scaled once. The presenter theme is a high-contrast
// variant for projectors (black panels, white text, thicker borders, brighter accents). Checked
// by eye in the screenshots (normal, presenter at 1.5x and 2x).
#pragma once

#include <imgui.h>

#include <string>

#include "lesson/presenter.h"

namespace gpulab::app {

struct Fonts {
    ImFont* regular = nullptr;
    ImFont* bold = nullptr;  // null: bold text falls back to a highlight colour
    ImFont* mono = nullptr;  // null: code falls back to the regular font
    ImFont* heading = nullptr;  // bold at 1.5x: presenter titles; null: bold or regular
    std::string note;        // which files were found, or why ImGui's default font is in use
};

inline constexpr float kBaseFontPixels = 16.0f;

// Clears `atlas` and loads DejaVu Sans (assets/fonts, then /usr/share/fonts) at base * scale.
Fonts load_fonts(ImFontAtlas* atlas, float scale);

// The current context's style: dark, rounded a little (or the presenter's high-contrast theme),
// then ScaleAllSizes(scale).
void apply_style(float scale, core::Theme theme = core::Theme::Normal);

// Rebuilds fonts and style and re-uploads the font texture through the OpenGL3 backend.
Fonts rebuild_fonts_and_style(float scale, core::Theme theme = core::Theme::Normal);

}  // namespace gpulab::app
