// Colour-blind-safe backend colours (Okabe and Ito's eight-colour palette, distinguishable with
// the common forms of colour blindness and in greyscale by lightness) and the switch between it
// and the default palette. backend_color() (timing_plot.cpp) asks here first, so every plot,
// legend, canvas and export follows the View menu's choice; labels next to every bar and line
// keep the encoding redundant. Checked by eye in the screenshots.
#pragma once

#include <imgui.h>

#include <string_view>

namespace gpulab::app {

// One process-wide choice: backend_color() is a free function called from every plot, and the
// palette is a viewer preference, not per-window state.
void set_colour_blind_palette(bool on);
bool colour_blind_palette();

// The Okabe-Ito colour for a backend; unknown names cycle through the unused palette entries.
ImU32 okabe_ito_backend_color(std::string_view backend, float alpha);

}  // namespace gpulab::app
