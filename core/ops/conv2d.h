// 2D convolution as CNNs compute it: cross-correlation (the filter is NOT flipped), in N,C,H,W /
// K,C,R,S / N,K,P,Q notation (the notation CUTLASS's reference and cuDNN use):
//   out[n][k][p][q] = sum over c, r, s of in[n][c][p*stride + r - pad][q*stride + s - pad] * f[k][c][r][s]
// with zero outside the input. Verified by tests/test_conv2d.cpp (hand-computed cases) and
// every backend against cpu-scalar.
#pragma once

#include <cstdint>
#include <string>

#include "hd_math.h"

namespace gpulab::core {

enum class Padding { Zero, None };
// Limits validate() enforces: odd kernels up to 15x15 (custom files), strides up to 8.
inline constexpr int64_t kMaxConv2dKernel = 15;
inline constexpr int64_t kMaxConv2dStride = 8;
  // Zero: "same" size for stride 1 (pad = R/2); None: valid only

struct Conv2dDesc {
    int64_t batch = 1;     // N
    int64_t channels = 1;  // C
    int64_t height = 0;    // H
    int64_t width = 0;     // W
    int64_t filters = 1;   // K
    int64_t kernel = 3;    // R = S (odd, 1..7 in the lesson; up to 15 from files)
    Padding padding = Padding::Zero;
    int64_t stride = 1;

    int64_t pad() const { return padding == Padding::Zero ? kernel / 2 : 0; }
    int64_t out_height() const { return (height + 2 * pad() - kernel) / stride + 1; }  // P
    int64_t out_width() const { return (width + 2 * pad() - kernel) / stride + 1; }    // Q
    int64_t input_elements() const { return batch * channels * height * width; }
    int64_t filter_elements() const { return filters * channels * kernel * kernel; }
    int64_t output_elements() const { return batch * filters * out_height() * out_width(); }
    // One multiply and one add per filter tap per output element.
    double flops() const { return 2.0 * static_cast<double>(output_elements()) * channels * kernel * kernel; }
    // Empty when the shape is valid; else one sentence for the user (even or oversized kernel,
    // stride 0, kernel larger than the unpadded input, non-positive sizes).
    std::string validate() const;
    std::string to_string() const;  // "N=1 C=1 H=512 W=512 K=1 R=S=3 pad=zero stride=1 -> P=512 Q=512"
};

}  // namespace gpulab::core

namespace gpulab::hd {

// One output element, written once for the CPU reference and the naive CUDA kernel.
// Pointers are to the start of image n (C*H*W floats) and filter k (C*R*S floats): `const float*`,
// or the SIMT simulator's checked pointers when the naive kernel runs on cuda-sim.
template <class ImagePtr, class FilterPtr>
GPULAB_HD float conv2d_point(ImagePtr image, FilterPtr filter, int64_t channels, int64_t height, int64_t width,
                             int64_t kernel, int64_t pad, int64_t stride, int64_t p, int64_t q) {
    float acc = 0.0f;
    for (int64_t c = 0; c < channels; ++c) {
        for (int64_t r = 0; r < kernel; ++r) {
            const int64_t y = p * stride + r - pad;
            if (y < 0 || y >= height) continue;  // zero padding: the tap reads 0
            for (int64_t s = 0; s < kernel; ++s) {
                const int64_t x = q * stride + s - pad;
                if (x < 0 || x >= width) continue;
                acc += image[(c * height + y) * width + x] * filter[(c * kernel + r) * kernel + s];
            }
        }
    }
    return acc;
}

}  // namespace gpulab::hd
