// See train_draw.h.
#include "train_draw.h"

#include "widgets/presenter_palette.h"

namespace gpulab::app {

void draw_grey_picture(ImDrawList* dl, const std::uint8_t* pixels, std::int64_t size, ImVec2 at, float side) {
    const float cell = side / static_cast<float>(size);
    dl->AddRectFilled(at, {at.x + side, at.y + side}, IM_COL32(0, 0, 0, 255));
    for (std::int64_t y = 0; y < size; ++y)
        for (std::int64_t x = 0; x < size; ++x) {
            const std::uint8_t v = pixels[y * size + x];
            if (v < 8) continue;  // the black background is already there
            const ImVec2 p{at.x + x * cell, at.y + y * cell};
            dl->AddRectFilled(p, {p.x + cell + 0.5f, p.y + cell + 0.5f}, IM_COL32(v, v, v, 255));
        }
}

ImU32 layer_colour(train::LayerKind kind, float alpha) {
    if (colour_blind_palette()) {
        const int k = kind == train::LayerKind::Conv ? 0 : kind == train::LayerKind::Relu ? 1
                      : kind == train::LayerKind::MaxPool ? 2 : 3;
        return to_u32(kColourBlindLayers[k], alpha);
    }
    ImVec4 c;
    switch (kind) {
        case train::LayerKind::Conv: c = {0.95f, 0.58f, 0.25f, alpha}; break;
        case train::LayerKind::Relu: c = {0.45f, 0.80f, 0.45f, alpha}; break;
        case train::LayerKind::MaxPool: c = {0.40f, 0.65f, 0.95f, alpha}; break;
        case train::LayerKind::Dense: c = {0.75f, 0.55f, 0.95f, alpha}; break;
    }
    return ImGui::ColorConvertFloat4ToU32(c);
}

}  // namespace gpulab::app
