// Learnable 28 x 28 pictures for the training tests: noise below 60/255 with a bright 4 x 4 square
// placed by the label (as tests/test_train_engines.cpp builds them). Random pictures with random
// labels make a few training steps swing wildly, which says nothing about the arithmetic under test.
// (tests/test_gpu_train_cudnn.cpp has its own variant without tied maxima, for cuDNN's pooling.)
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace gpulab::test {

inline std::vector<float> toy_pictures(std::int64_t n, std::vector<std::uint8_t>& labels, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<float> images(static_cast<std::size_t>(n * 784));
    labels.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        const int label = static_cast<int>(rng() % 10);
        labels[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(label);
        float* px = images.data() + i * 784;
        for (int j = 0; j < 784; ++j) px[j] = static_cast<float>(rng() % 60) / 255.0f;
        const int y0 = 2 + (label / 5) * 14, x0 = 2 + (label % 5) * 4;
        for (int y = y0; y < y0 + 4; ++y)
            for (int x = x0; x < x0 + 4; ++x) px[y * 28 + x] = 230.0f / 255.0f;
    }
    return images;
}

}  // namespace gpulab::test
