// A labelled image data set in the MNIST layout: four IDX files (train and test images and labels,
// gzipped or not) in one folder. Fashion-MNIST from Debian's dataset-fashion-mnist is the default;
// the original MNIST, or any data set in the same layout, loads with --data DIR.
// Pixels stay as bytes (60,000 28x28 images are 47 MB; floats would be four times that) and are
// scaled to [0, 1] per batch. Verified by tests/test_train_idx.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpulab::train {

// Where Debian's dataset-fashion-mnist installs its files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

struct ImageSet {
    std::int64_t count = 0, rows = 0, cols = 0;
    std::vector<std::uint8_t> pixels;  // count * rows * cols
    std::vector<std::uint8_t> labels;  // count, each < classes
};

struct Dataset {
    std::string folder;
    ImageSet train, test;
    int classes = 10;
};

// Fashion-MNIST's class names, for labels 0..9.
const char* fashion_mnist_class_name(int label);

// Reads `folder`/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]. `limit` > 0 keeps only the
// first `limit` training and test images (for quick runs and tests). Throws core::InputError with
// one sentence: a missing folder or file names the package to install or --data; damaged files
// are described by the IDX reader; images and labels of different counts or sizes, or labels of
// 10 or more, are refused.
Dataset load_dataset(const std::string& folder, std::int64_t limit = 0);

// The path of one of the four files, .gz preferred; "" when neither exists.
std::string find_idx_file(const std::string& folder, const std::string& stem);

}  // namespace gpulab::train
