// Loading pictures and .npy arrays as tensors, and writing .npy. Bad files raise InputError with
// a message naming the file and what is wrong with it (tests/test_npy.cpp, tests/test_image_io.cpp);
// only regular files are read, sizes are checked against the file's length before allocating
// (core/io/file_io.h), and tests/fuzz/ fuzzes both readers.
#pragma once

#include <stdexcept>
#include <string>

#include "ops/tensor.h"

namespace gpulab::core {

// A user-facing problem with an input (file, size, flag): the message is shown as is.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// PNG/JPG/BMP/... via stb_image, converted to luminance in [0, 1], shape (H, W).
Tensor load_image_gray(const std::string& path);
// The same from a picture file's bytes already in memory; `name` is used in messages.
Tensor decode_image_gray(const std::string& bytes, const std::string& name);
// The same picture as three colour planes R, G, B in [0, 1], shape (3, H, W); a grayscale file
// gives three equal planes. Same errors as load_image_gray.
Tensor load_image_rgb(const std::string& path);
// The same, recentred to [-1, 1] so activations see negative and positive values.
Tensor load_image_as_feature_map(const std::string& path);

// NumPy .npy, float32 (also accepts float64 / int32 / uint8 and converts), C order.
Tensor read_npy(const std::string& path);
void write_npy(const std::string& path, const Tensor& t);

// Reads .npy or any image by extension.
Tensor read_tensor_file(const std::string& path);

}  // namespace gpulab::core
