// Colour-blind-safe colours (Okabe and Ito's eight-colour palette, distinguishable with the common
// forms of colour blindness and in greyscale by lightness) and the switch between it and the
// default palette, plus the shapes that go with the colours: a marker per backend for the plots'
// lines and legends, and a tick, a cross or a warning triangle beside a status colour. The switch
// covers backend_color() (timing_plot.cpp), the status colours (kOkColour, kErrorColour, kWarnColour
// in ui_helpers.h) and the confusion matrix's map, so every plot, legend, canvas and export follows
// the View menu's choice (`gpulab export --palette colour-blind` headless). The colours are checked
// under simulated colour vision deficiency by tests/test_palette_cvd.cpp, the exported pictures by
// scripts/cvd-check.py.
#pragma once

#include <imgui.h>

#include <string_view>

#include "palette_colours.h"

namespace gpulab::app {

// One process-wide choice: backend_color() is a free function called from every plot, and the
// palette is a viewer preference, not per-window state.
void set_colour_blind_palette(bool on);
bool colour_blind_palette();

// The Okabe-Ito colour for a backend; unknown names cycle through the unused palette entries.
ImU32 okabe_ito_backend_color(std::string_view backend, float alpha);

ImU32 to_u32(Rgb8 c, float alpha = 1.0f);
ImVec4 to_vec4(Rgb8 c, float alpha = 1.0f);

// [SECTION] shapes

// A marker shape per backend, the same in both palettes: where two lines cross or lie on top of
// each other, the shapes still tell them apart.
enum class Marker { Circle, Square, Diamond, TriangleUp, TriangleDown, Cross };
Marker backend_marker(std::string_view backend);
// The marker centred on `c`, `r` its half-size in pixels; hollow when `filled` is false.
void draw_marker(ImDrawList* dl, ImVec2 c, float r, Marker m, ImU32 colour, bool filled = true);

// A tick (Ok), a cross (Error) or a warning triangle (Warn) in a square of side `size` at `top_left`,
// drawn with lines: the font atlas loads no U+2713 / U+2717, and ImGui's built-in fallback font has
// neither.
void draw_status_mark(ImDrawList* dl, ImVec2 top_left, float size, Status s, ImU32 colour);
// The mark one text line tall at the cursor, then SameLine: what a coloured line of text starts with.
void status_mark(Status s);

}  // namespace gpulab::app
