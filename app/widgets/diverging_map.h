// The diverging map of signed values in the View menu's palette: blue-white-red by default,
// blue-white-orange in the colour-blind palette (render/diverging_ramp.h has both and says why).
// Everything that draws or names the map asks here: the GL pictures through diverging_range(), the
// cells a view draws itself through diverging_colour(), the sentences beside them through
// diverging_positive_word(). So one switch turns every picture, colour bar and caption together.
#pragma once

#include <imgui.h>

#include "presenter_palette.h"
#include "render/tensor_texture.h"

namespace gpulab::app {

inline DivergingRamp diverging_ramp() {
    return colour_blind_palette() ? DivergingRamp::BlueOrange : DivergingRamp::BlueRed;
}

// `v` on the map whose ends are -range and +range (beyond them, the end colours).
inline ImU32 diverging_colour(float v, float range, float alpha = 1.0f) {
    const float r = range > 1e-12f ? range : 1e-12f;
    return to_u32(diverging_rgb(diverging_ramp(), v / r), alpha);
}

// A tensor picture's range on the palette's ramp: TensorTexture::set_from_host(..., diverging_range(-r, r)).
inline ColorRange diverging_range(float lo, float hi) { return {lo, hi, diverging_ramp()}; }

// "red" or "orange": the word for the positive end, in the sentences that describe the map.
inline const char* diverging_positive_word() { return gpulab::app::diverging_positive_word(diverging_ramp()); }

}  // namespace gpulab::app
