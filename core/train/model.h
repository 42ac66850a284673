// A small CNN described as data: every layer with its input and output shapes, where its weights
// sit in one flat parameter vector, and its arithmetic per image. Every training engine runs the
// same description, and the lesson draws it. The default is the source article's Keras model:
//
//   28x28x1 -> conv 3x3, 32 -> ReLU -> max pool 2x2 -> conv 3x3, 64 -> ReLU -> max pool 2x2
//           -> conv 3x3, 64 -> ReLU -> flatten (576) -> dense 64 -> ReLU -> dense 10 -> softmax
//
// Convolutions are "valid" (no padding, stride 1, Keras' default), pooling drops an odd last row
// or column (11x11 -> 5x5, as Keras does), tensors are N,C,H,W, convolution weights
// K,C,R,S, dense weights (out, in) row-major, flattening is C,H,W order. 93,322 parameters.
// Verified by tests/test_train_model.cpp (shapes, counts, FLOPs, He initialisation).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpulab::train {

struct Shape3 {
    std::int64_t c = 0, h = 0, w = 0;
    std::int64_t size() const { return c * h * w; }
    std::string to_string() const;  // "26x26x32" (H x W x C, as Keras prints it)
};

enum class LayerKind { Conv, Relu, MaxPool, Dense };

struct Layer {
    LayerKind kind = LayerKind::Relu;
    std::string name;  // "conv1", "relu1", "pool1", "dense1", ...
    Shape3 in, out;
    std::int64_t kernel = 0;          // conv: R = S; pool: window and stride
    std::int64_t weight_offset = 0;   // into the flat parameter vector (conv and dense only)
    std::int64_t weight_count = 0;
    std::int64_t bias_offset = 0;
    std::int64_t bias_count = 0;
    bool needs_input_gradient = true;  // false for the first layer: nothing before it learns

    bool has_params() const { return weight_count > 0; }
    // Per image. A multiply-add is 2 FLOPs; a bias add, ReLU or comparison 1.
    double forward_flops() const;
    double backward_flops() const;  // weights + bias gradients, and the input gradient if needed
};

struct ModelDesc {
    Shape3 input;
    int classes = 10;
    std::string spec;  // "conv32,pool,conv64,pool,conv64,dense64,dense10"
    std::vector<Layer> layers;
    std::int64_t parameter_count = 0;

    double forward_flops() const;   // per image, the loss included
    double backward_flops() const;  // per image
    // One SGD-with-momentum update: 3 FLOPs per parameter, once per batch (not per image).
    double step_flops() const { return 3.0 * static_cast<double>(parameter_count); }
    // The largest activation of one image (floats): sizes the engines' scratch buffers.
    std::int64_t max_activation() const;
    // About how many bytes an engine holds to train with batches of `batch`: parameters, gradients
    // and momentum, the images, every layer's output and two gradient buffers of the largest
    // activation (what the engines allocate: host_train_engine.h, the GPU engines' allocate()).
    // Saturates instead of overflowing, so an absurd model is simply too large.
    std::int64_t training_bytes(std::int64_t batch) const;
    // A table: layer, output shape, parameters, forward and backward MFLOP per image.
    std::string summary() const;
};

// The article's model on H x W x 1 images.
inline constexpr const char* kDefaultModelSpec = "conv32,pool,conv64,pool,conv64,dense64,dense10";

// Builds a model from a comma-separated spec: convN (3x3, N filters, then ReLU), pool (2x2 max),
// denseN (N outputs; ReLU after all but the last). The last layer must be dense with `classes`
// outputs. Throws core::InputError with one sentence when the spec is malformed or a layer would
// shrink the picture below 1x1.
ModelDesc make_model(const std::string& spec, Shape3 input, int classes = 10);

// He initialisation (uniform in +-sqrt(6 / fan_in), suited to ReLU), biases zero, from a seed:
// the same seed gives the same weights on every machine and backend (std::mt19937_64 is specified
// bit for bit; the standard's distributions are not, so the mapping to floats is ours).
std::vector<float> init_params(const ModelDesc& model, std::uint64_t seed);
// Throws core::InputError with one sentence when training `model` with batches of `batch` needs
// more memory than this machine can give (ModelDesc::training_bytes): asked before init_params, so
// a model like conv99999 is refused at once, not after 16 s and 2.6 GB of parameters (issue 43).
void check_training_fits(const ModelDesc& model, std::int64_t batch);

}  // namespace gpulab::train
