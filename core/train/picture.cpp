// Scaling a dropped picture to the model's input: see picture.h.
#include "picture.h"

#include <algorithm>
#include <cmath>

#include "io/image_io.h"

namespace gpulab::train {

ModelPicture picture_for_model(const core::Tensor& grey, std::int64_t size) {
    if (grey.shape.size() != 2 || grey.shape[0] < 1 || grey.shape[1] < 1 || size < 1)
        throw core::InputError("the picture must be one grey plane of at least 1x1 pixels, shape " +
                               grey.shape_string());
    const std::int64_t h = grey.shape[0], w = grey.shape[1];
    const float* src = grey.ptr();
    // The border says what the background is: mostly light means a dark object on a light page.
    double border = 0.0;
    std::int64_t n = 0;
    for (std::int64_t x = 0; x < w; ++x) border += src[x] + src[(h - 1) * w + x], n += 2;
    for (std::int64_t y = 0; y < h; ++y) border += src[y * w] + src[y * w + w - 1], n += 2;
    ModelPicture out;
    out.size = size;
    out.inverted = border / static_cast<double>(n) > 0.5;
    // Fit the longer side into `size`, centred; the rest is background (0).
    const double scale = static_cast<double>(size) / static_cast<double>(std::max(h, w));
    const double out_h = h * scale, out_w = w * scale;
    const double y0 = (static_cast<double>(size) - out_h) / 2.0, x0 = (static_cast<double>(size) - out_w) / 2.0;
    out.pixels.assign(static_cast<std::size_t>(size * size), 0);
    for (std::int64_t oy = 0; oy < size; ++oy) {
        for (std::int64_t ox = 0; ox < size; ++ox) {
            // The source rectangle under this output pixel, in source pixels.
            const double sy0 = (oy - y0) / scale, sy1 = (oy + 1 - y0) / scale;
            const double sx0 = (ox - x0) / scale, sx1 = (ox + 1 - x0) / scale;
            if (sy1 <= 0 || sx1 <= 0 || sy0 >= h || sx0 >= w) continue;
            const std::int64_t ya = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(sy0)), 0, h - 1);
            const std::int64_t yb = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(sy1)), ya + 1, h);
            const std::int64_t xa = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(sx0)), 0, w - 1);
            const std::int64_t xb = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(sx1)), xa + 1, w);
            double sum = 0.0;
            for (std::int64_t y = ya; y < yb; ++y)
                for (std::int64_t x = xa; x < xb; ++x) sum += src[y * w + x];
            double v = sum / static_cast<double>((yb - ya) * (xb - xa));
            if (out.inverted) v = 1.0 - v;
            out.pixels[static_cast<std::size_t>(oy * size + ox)] =
                static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
        }
    }
    out.note = std::to_string(w) + "x" + std::to_string(h) + " picture" +
               (out.inverted ? ", inverted (light background)" : "") + ", scaled to " + std::to_string(size) + "x" +
               std::to_string(size);
    return out;
}

}  // namespace gpulab::train
