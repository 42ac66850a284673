// Drawing pieces the training view's panels share: a small grey picture from its bytes (as
// rectangles on ImDrawList, no texture: 784 cells per 28x28 picture, cheap, and the same in the
// window and in the exported PNG), and one colour per model layer kind.
#pragma once

#include <imgui.h>

#include <cstdint>

#include "train/model.h"

namespace gpulab::app {

// `size` x `size` bytes (0 black .. 255 white) as a picture `side` pixels wide at `at`.
void draw_grey_picture(ImDrawList* dl, const std::uint8_t* pixels, std::int64_t size, ImVec2 at, float side);

// Convolutions orange, ReLU green, pooling blue, dense purple; `alpha` for the backward halves.
ImU32 layer_colour(train::LayerKind kind, float alpha = 1.0f);

}  // namespace gpulab::app
