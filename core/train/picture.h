// A picture a student drops on the window, made to look like the data set the model learnt from:
// grey, 28x28, the object light on a dark background (Fashion-MNIST's convention; a photo of a shoe
// on a white table is inverted first), the whole picture fitted in the square with its aspect kept.
// Plain C++; the file is read by core/io/image_io.h. Verified by tests/test_train_evaluation.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ops/tensor.h"

namespace gpulab::train {

struct ModelPicture {
    std::int64_t size = 0;             // rows = cols
    std::vector<std::uint8_t> pixels;  // size * size, 0 = background
    bool inverted = false;             // the picture's border was light, so it was inverted
    std::string note;                  // "800x600 picture, inverted (light background), scaled to 28x28"
};

// `grey`: shape (H, W), values in [0, 1] (core::load_image_gray). Box-filters (averages every source
// pixel under an output pixel) when shrinking, so thin lines do not vanish. Throws core::InputError
// for a tensor that is not 2-D or is empty.
ModelPicture picture_for_model(const core::Tensor& grey, std::int64_t size = 28);

}  // namespace gpulab::train
