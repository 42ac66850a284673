#include "op_desc.h"

namespace gpulab::core {

std::string_view activation_name(Activation a) {
    switch (a) {
        case Activation::Relu: return "relu";
        case Activation::LeakyRelu: return "leaky-relu";
        case Activation::Sigmoid: return "sigmoid";
        case Activation::Tanh: return "tanh";
        case Activation::Gelu: return "gelu";
    }
    return "?";
}

std::string_view activation_label(Activation a) {
    switch (a) {
        case Activation::Relu: return "ReLU";
        case Activation::LeakyRelu: return "leaky ReLU";
        case Activation::Sigmoid: return "sigmoid";
        case Activation::Tanh: return "tanh";
        case Activation::Gelu: return "GELU (tanh approx.)";
    }
    return "?";
}

std::optional<Activation> parse_activation(std::string_view name) {
    for (Activation a : kAllActivations) {
        if (activation_name(a) == name) return a;
    }
    if (name == "leaky_relu") return Activation::LeakyRelu;
    return std::nullopt;
}

std::string OpDesc::label() const { return std::string(activation_label(activation)); }

double OpDesc::bytes_moved(int64_t elements) const { return 2.0 * sizeof(float) * static_cast<double>(elements); }

double OpDesc::flops(int64_t elements) const {
    double per = 1;
    switch (activation) {
        case Activation::Relu: per = 1; break;
        case Activation::LeakyRelu: per = 2; break;
        case Activation::Sigmoid: per = 4; break;   // neg, exp (counted as 1), add, div
        case Activation::Tanh: per = 5; break;
        case Activation::Gelu: per = 10; break;
    }
    return per * static_cast<double>(elements);
}

}  // namespace gpulab::core
