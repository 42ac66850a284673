// The diverging map that colours signed values (a convolution's output and filter, a layer's
// channels, an activation's input), in its two versions, as plain numbers with no GL: the default
// palette's blue-white-red and the colour-blind palette's blue-white-orange. shaders/colormap.frag
// gets the stops of either as a uniform (tensor_texture.cpp); cells the views draw themselves use
// diverging_rgb(), the same interpolation; widgets/diverging_map.h picks the ramp from the View
// menu's palette. Checked under simulated colour vision deficiency by tests/test_palette_cvd.cpp;
// scripts/cvd-check.py reads the ends from this file.
//
// Why diverging: what matters in such a value is first its sign, then its size. The lightest colour
// sits at 0 and distance from 0 darkens on both sides, so the eye reads the sign from the hue and
// the size from the lightness.
#pragma once

#include <cstdint>

namespace gpulab::app {

struct Rgb8 {
    uint8_t r, g, b;
};

enum class DivergingRamp {
    BlueRed,     // default palette
    BlueOrange,  // colour-blind palette
};

// Five stops each, interpolated linearly: negative end, half-way, 0, half-way, positive end.
// Blue-white-red: the lightness falls off at about the same rate on both sides of white. Under
// deuteranopia and protanopia its red turns dark olive, close in hue to nothing else on the ramp but
// easy to misname; blue-white-orange keeps the two sides blue and orange, the pair every common form
// of colour blindness still tells apart (the training lesson's learned-channels panel had it first).
inline constexpr Rgb8 kDivergingBlueDeep{10, 48, 120}, kDivergingBlueMid{84, 148, 214},
    kDivergingWhite{247, 247, 247}, kDivergingRedMid{222, 105, 79}, kDivergingRedDeep{120, 10, 28};
inline constexpr Rgb8 kDivergingCbBlueDeep{33, 102, 171}, kDivergingCbBlueMid{140, 175, 209},
    kDivergingCbOrangeMid{238, 172, 124}, kDivergingCbOrangeDeep{230, 97, 0};

inline constexpr Rgb8 kBlueRedStops[5] = {kDivergingBlueDeep, kDivergingBlueMid, kDivergingWhite, kDivergingRedMid,
                                          kDivergingRedDeep};
inline constexpr Rgb8 kBlueOrangeStops[5] = {kDivergingCbBlueDeep, kDivergingCbBlueMid, kDivergingWhite,
                                             kDivergingCbOrangeMid, kDivergingCbOrangeDeep};

constexpr const Rgb8* diverging_stops(DivergingRamp ramp) {
    return ramp == DivergingRamp::BlueOrange ? kBlueOrangeStops : kBlueRedStops;
}

// `t` in [-1, 1] (clamped): -1 the negative end, 0 the middle, 1 the positive end. NaN gives the middle.
constexpr Rgb8 diverging_rgb(DivergingRamp ramp, float t) {
    t = t < -1.0f ? -1.0f : t > 1.0f ? 1.0f : t == t ? t : 0.0f;
    const float x = (t + 1.0f) * 2.0f;  // 0 .. 4 along the stops
    const int i = x >= 3.0f ? 3 : static_cast<int>(x);
    const float f = x - static_cast<float>(i);
    const Rgb8 a = diverging_stops(ramp)[i], b = diverging_stops(ramp)[i + 1];
    auto mix = [f](uint8_t p, uint8_t q) {
        return static_cast<uint8_t>(static_cast<float>(p) + (static_cast<float>(q) - static_cast<float>(p)) * f + 0.5f);
    };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

// The word for the positive end, for the sentences beside a picture: "red" or "orange".
constexpr const char* diverging_positive_word(DivergingRamp ramp) {
    return ramp == DivergingRamp::BlueOrange ? "orange" : "red";
}

}  // namespace gpulab::app
