// The convolution lesson's measurement: an input image (a built-in photo-like test image, a
// picture file, or random multi-channel data), a filter bank (named filters or custom), every
// backend on the same shapes, results compared with cpu-scalar, GFLOP/s and the library
// implementation each peer ran. Also 2x2 max pooling (CPU, the lesson's last step).
// Verified by tests/test_conv2d.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "ops/conv2d.h"
#include "activation_workload.h"

namespace gpulab::core {

// [SECTION] inputs and filters
// A deterministic photo-like grayscale image in [0, 1], shape (H, W): smooth gradients, discs,
// edges, stripes and fine texture, so every filter has something to show.
Tensor make_test_image(int64_t height, int64_t width);
// The same scene in colour, shape (3, H, W), planes R, G, B in [0, 1]: a bluish sky, a warm disc,
// a green rectangle, magenta stripes, a yellow and blue checkerboard. Deterministic.
Tensor make_test_image_rgb(int64_t height, int64_t width);

// Named filters: identity, box, gaussian, sharpen, sobel-x, sobel-y, laplacian, emboss.
// `kernel` is the size for box / gaussian (odd, 3..7); the others are 3x3. Shape (1, 1, R, S).
// Throws InputError (core/io/image_io.h) for an unknown name or an even / out-of-range size.
Tensor make_named_filter(const std::string& name, int64_t kernel = 3);
std::vector<std::string> named_filters();

// A custom filter from .npy: (R, S) or (K, C, R, S); R == S, odd. Throws InputError naming the
// problem (malformed file, even size, non-square) otherwise.
Tensor load_filter_file(const std::string& path);

// Random data in [-1, 1] for the CNN-layer mode: input (N, C, H, W) and filters (K, C, R, S).
Tensor make_random_tensor(std::vector<int64_t> shape, uint32_t seed);

// [SECTION] pooling
// 2x2 max pooling with stride 2 on (N, C, H, W) or (H, W): odd trailing rows/columns dropped,
// as frameworks do by default. Throws InputError when H or W < 2.
Tensor max_pool_2x2(const Tensor& input);

// [SECTION] the run
struct Conv2dParams {
    std::string filter = "sobel-x";  // a named filter, or "custom" with filter_path / custom_filter
    std::string filter_path;         // .npy for "custom"
    Tensor custom_filter;            // used when filter == "custom" and filter_path is empty
    int64_t kernel = 3;              // for box / gaussian
    Padding padding = Padding::Zero;
    int64_t stride = 1;
    std::string image_path;          // empty: the built-in test image of size height x width
    int64_t height = 512, width = 512;
    // The picture as three colour channels R, G, B, the filter applied to each on its own: the
    // input is (N=3, C=1, H, W), a depthwise convolution. Image mode only; the filter has C=1.
    bool per_channel = false;
    // CNN-layer mode: random C-channel input and K random filters (ignores filter / image)
    bool layer_mode = false;
    int64_t batch = 1, channels = 3, filters = 4;
    uint32_t seed = 1;
};

struct Conv2dRun {
    Conv2dParams params;
    Conv2dDesc desc;
    bool ok = false;
    std::string error;
    Tensor input, filters, reference_output;
    Tensor simulated_output;        // the first simulated backend's output (cuda-sim), for display
    std::string simulated_backend;  // where no GPU ran; empty when none ran
    std::vector<BackendReport> reports;  // gflops, implementation, check filled; gbps from declared bytes
    std::string reference_backend;       // whose output the checks compare with ("cpu-scalar" normally)
    int64_t started_unix_s = 0;
};

// The settings a run measured, written out (custom filter values included): the results cache's
// key (core/measure/result_cache.h). Layer mode leaves out the picture and the named filter.
std::string conv2d_config_key(const Conv2dParams& p);
// About how much memory a run holds (its tensors), for the cache's budget.
std::size_t conv2d_run_bytes(const Conv2dRun& run);

// Builds the input and filters, refuses shapes that do not fit memory before allocating, runs
// every backend that supports the shape (backends[0]: cpu-scalar, the reference). Never throws.
Conv2dRun run_conv2d(const Conv2dParams& params, std::span<Backend* const> backends, const MeasureConfig& config,
                     const ProgressFn& progress = {});

// The check every backend gets against cpu-scalar: abs 1e-5 * C*R*S * max|input| * max|filter|,
// rel 1e-5 (summation order differs between implementations; conv2d_workload.cpp says why).
Tolerance conv2d_tolerance(const Conv2dDesc& desc, const Tensor& input, const Tensor& filters);

// Applies a lesson step's parameters (filter, kernel, padding, stride, image, height, width,
// per_channel, layer_mode, batch, channels, filters) on top of `base`.
Conv2dParams conv2d_params_from(const std::map<std::string, ParamValue>& params, Conv2dParams base);

}  // namespace gpulab::core
