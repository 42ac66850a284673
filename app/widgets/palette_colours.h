// The colours that carry meaning, as plain numbers with no ImGui: the backend colours of the
// colour-blind-safe palette (Okabe and Ito's eight-colour set), the status colours (ok / error /
// warning) of both palettes, and the single-hue sequential map the colour-blind palette gives the
// confusion matrix. The diverging map of signed values sits one floor down, in
// render/diverging_ramp.h, because the GL layer's shader needs it too. presenter_palette.cpp and
// ui_helpers.h turn them into ImGui colours; the doctest binary, which links no ImGui, checks them
// under simulated colour vision deficiency (tests/test_palette_cvd.cpp), and scripts/cvd-check.py
// reads this file to know what to look for in the exported pictures.
#pragma once

#include <cstdint>
#include <string_view>

#include "render/diverging_ramp.h"  // Rgb8, and the diverging map of signed values in both palettes

namespace gpulab::app {

// Okabe & Ito (2008), "Color Universal Design".
inline constexpr Rgb8 kOkabeOrange{230, 159, 0};
inline constexpr Rgb8 kOkabeSkyBlue{86, 180, 233};
inline constexpr Rgb8 kOkabeBluishGreen{0, 158, 115};
inline constexpr Rgb8 kOkabeYellow{240, 228, 66};
inline constexpr Rgb8 kOkabeBlue{0, 114, 178};
inline constexpr Rgb8 kOkabeVermillion{213, 94, 0};
inline constexpr Rgb8 kOkabeReddishPurple{204, 121, 167};

// [SECTION] backends

struct BackendColour {
    std::string_view backend;
    Rgb8 colour;
};

// The five backends that draw bars and lines. Chosen from the seven Okabe-Ito colours as the five
// whose smallest pairwise difference under simulated deuteranopia, protanopia and tritanopia is
// largest (CIE76 delta E >= 20.6, tests/test_palette_cvd.cpp). cpu-scalar and cpu-parallel, whose
// lines run side by side, sit far apart (vermillion against yellow: delta E >= 33). CPU backends keep
// the warm colours, GPU backends the cool ones. The plots also give every backend its own marker
// shape (backend_marker, presenter_palette.h), so colour is never the only cue.
inline constexpr BackendColour kColourBlindBackends[] = {
    {"cpu-scalar", kOkabeVermillion}, {"cpu-parallel", kOkabeYellow}, {"cpu-onednn", kOkabeReddishPurple},
    {"cuda-kernel", kOkabeSkyBlue},   {"cudnn", kOkabeBlue},
};
// Any other name: bluish green on the GPU side (gpu-cublas, cuda-sim, whose time is never plotted),
// orange on the CPU side, so the warm / cool split holds for backends added later too.
inline constexpr Rgb8 kColourBlindOtherGpuBackend = kOkabeBluishGreen;
inline constexpr Rgb8 kColourBlindOtherCpuBackend = kOkabeOrange;

// The training lesson's layer kinds (train_draw.cpp: convolution, ReLU, max pool, dense), which the
// "where the time goes" bars and the model panel colour: four light Okabe-Ito colours, at least
// delta E 20.6 apart under each simulation; the wider bar segments also carry the layer's name.
inline constexpr Rgb8 kColourBlindLayers[] = {kOkabeVermillion, kOkabeYellow, kOkabeSkyBlue, kOkabeReddishPurple};

// The tensor-core lesson's four number formats (FP32, TF32, BF16, FP16: lines of its dot-product
// plot, each with its own marker, narrow sums dashed), the four lanes of a group (threadID_in_group
// t = 0..3 in its fragment picture, every cell also numbered) and the bit fields (sign, exponent,
// mantissa, each box also holding its digit): the same four light colours as the layer kinds,
// checked apart under each simulation by tests/test_palette_cvd.cpp. Used in both palettes.
inline constexpr Rgb8 kColourBlindFormats[] = {kOkabeSkyBlue, kOkabeReddishPurple, kOkabeVermillion, kOkabeYellow};

// [SECTION] status

enum class Status { Ok, Error, Warn };

// Default palette: green, red, amber (the values ui_helpers.h always had).
inline constexpr Rgb8 kDefaultOk{102, 219, 115}, kDefaultError{255, 97, 84}, kDefaultWarn{255, 199, 89};
// Colour-blind palette: sky blue, vermillion, yellow; on screen each also comes with a mark (tick,
// cross, warning triangle) or the words ("match", "MISMATCH", "available", "unavailable").
inline constexpr Rgb8 kColourBlindOk = kOkabeSkyBlue, kColourBlindError = kOkabeVermillion,
                      kColourBlindWarn = kOkabeYellow;

constexpr Rgb8 status_rgb(Status s, bool colour_blind) {
    switch (s) {
    case Status::Ok: return colour_blind ? kColourBlindOk : kDefaultOk;
    case Status::Error: return colour_blind ? kColourBlindError : kDefaultError;
    case Status::Warn: return colour_blind ? kColourBlindWarn : kDefaultWarn;
    }
    return kDefaultOk;
}

// [SECTION] confusion matrix

// The colour-blind palette's map for a cell's share of its row, t in [0, 1]: one hue (blue), dark to
// light, so order reads as lightness under every form of colour blindness and in greyscale.
inline constexpr Rgb8 kSequentialLow{24, 48, 84}, kSequentialHigh{198, 228, 255};

constexpr Rgb8 sequential_rgb(float t) {
    t = t < 0.0f ? 0.0f : t > 1.0f ? 1.0f : t;
    auto mix = [t](uint8_t a, uint8_t b) {
        return static_cast<uint8_t>(static_cast<float>(a) + (static_cast<float>(b) - static_cast<float>(a)) * t + 0.5f);
    };
    return {mix(kSequentialLow.r, kSequentialHigh.r), mix(kSequentialLow.g, kSequentialHigh.g),
            mix(kSequentialLow.b, kSequentialHigh.b)};
}

}  // namespace gpulab::app
