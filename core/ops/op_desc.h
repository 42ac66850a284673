// What an operation is, independent of who computes it: the kind, its parameters, and the bytes
// and flops it declares per element (throughput figures are computed from these, never guessed).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpulab::core {

enum class Activation { Relu, LeakyRelu, Sigmoid, Tanh, Gelu };

inline constexpr std::array<Activation, 5> kAllActivations = {Activation::Relu, Activation::LeakyRelu,
                                                              Activation::Sigmoid, Activation::Tanh,
                                                              Activation::Gelu};

// Stable command-line / lesson-file names: "relu", "leaky-relu", "sigmoid", "tanh", "gelu".
std::string_view activation_name(Activation a);
// Human label for plots: "ReLU", "leaky ReLU", ...
std::string_view activation_label(Activation a);
std::optional<Activation> parse_activation(std::string_view name);

enum class OpKind { Activation };

struct OpDesc {
    OpKind kind = OpKind::Activation;
    Activation activation = Activation::Relu;
    float leaky_alpha = 0.01f;  // slope for x < 0 in leaky ReLU

    std::string label() const;
    // Memory traffic the op needs at minimum: read every input float once, write every output once.
    double bytes_moved(int64_t elements) const;
    // Arithmetic per element, counted by hand from the formula (for GFLOP/s; activations are
    // bandwidth-bound, so GB/s is the figure that matters for them).
    double flops(int64_t elements) const;
};

}  // namespace gpulab::core
