// The model description: see model.h.
#include "model.h"

#include <algorithm>
#include <limits>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>

#include "io/image_io.h"
#include "runtime/memory.h"

namespace gpulab::train {

namespace {

using core::InputError;

constexpr std::int64_t kConvKernel = 3;
constexpr std::int64_t kPoolWindow = 2;

std::int64_t parse_count(const std::string& token, std::size_t prefix, const std::string& spec) {
    const std::string digits = token.substr(prefix);
    if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos ||
        std::stoll(digits) < 1)
        throw InputError("model '" + spec + "': '" + token + "' needs a count from 1 to 99999, e.g. conv32 or dense64");
    return std::stoll(digits);
}

}  // namespace

std::string Shape3::to_string() const {
    return std::to_string(h) + "x" + std::to_string(w) + "x" + std::to_string(c);
}

double Layer::forward_flops() const {
    const double out_n = static_cast<double>(out.size());
    switch (kind) {
        case LayerKind::Conv: return out_n * (2.0 * in.c * kernel * kernel + 1.0);
        case LayerKind::Dense: return out_n * (2.0 * in.size() + 1.0);
        case LayerKind::Relu: return out_n;
        case LayerKind::MaxPool: return out_n * (kernel * kernel - 1.0);
    }
    return 0.0;
}

double Layer::backward_flops() const {
    const double out_n = static_cast<double>(out.size());
    switch (kind) {
        case LayerKind::Conv: {
            const double macs = out_n * in.c * kernel * kernel;
            return 2.0 * macs + out_n + (needs_input_gradient ? 2.0 * macs : 0.0);
        }
        case LayerKind::Dense: {
            const double macs = out_n * in.size();
            return 2.0 * macs + out_n + (needs_input_gradient ? 2.0 * macs : 0.0);
        }
        case LayerKind::Relu: return out_n;
        case LayerKind::MaxPool: return out_n * (kernel * kernel - 1.0);  // finding the maximum again
    }
    return 0.0;
}

double ModelDesc::forward_flops() const {
    double f = 4.0 * classes;  // softmax: subtract the maximum, exp, sum, divide
    for (const Layer& l : layers) f += l.forward_flops();
    return f;
}

double ModelDesc::backward_flops() const {
    double f = 1.0 * classes;  // softmax minus one-hot
    for (const Layer& l : layers) f += l.backward_flops();
    return f;
}

std::int64_t ModelDesc::max_activation() const {
    std::int64_t m = input.size();
    for (const Layer& l : layers) m = std::max(m, l.out.size());
    return m;
}

std::int64_t ModelDesc::training_bytes(std::int64_t batch) const {
    const auto mul = [](std::int64_t a, std::int64_t b) {
        std::int64_t r = 0;
        return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
    };
    const auto add = [](std::int64_t a, std::int64_t b) {
        std::int64_t r = 0;
        return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
    };
    std::int64_t per_image = add(input.size(), mul(2, max_activation()));
    for (const Layer& l : layers) per_image = add(per_image, l.out.size());
    return mul(4, add(mul(3, parameter_count), mul(batch, per_image)));
}

std::string ModelDesc::summary() const {
    std::ostringstream s;
    char line[160];
    std::snprintf(line, sizeof line, "%-8s %-12s %10s %14s %14s\n", "layer", "output", "parameters", "fwd MFLOP/img",
                  "bwd MFLOP/img");
    s << line;
    std::snprintf(line, sizeof line, "%-8s %-12s %10s\n", "input", input.to_string().c_str(), "");
    s << line;
    for (const Layer& l : layers) {
        std::snprintf(line, sizeof line, "%-8s %-12s %10lld %14.3f %14.3f\n", l.name.c_str(), l.out.to_string().c_str(),
                      static_cast<long long>(l.weight_count + l.bias_count), l.forward_flops() / 1e6,
                      l.backward_flops() / 1e6);
        s << line;
    }
    std::snprintf(line, sizeof line, "%-8s %-12s %10lld %14.3f %14.3f\n", "total", "", static_cast<long long>(parameter_count),
                  forward_flops() / 1e6, backward_flops() / 1e6);
    s << line;
    return s.str();
}

ModelDesc make_model(const std::string& spec, Shape3 input, int classes) {
    ModelDesc m;
    m.input = input;
    m.classes = classes;
    m.spec = spec;
    std::vector<std::string> tokens;
    std::stringstream in(spec);
    for (std::string t; std::getline(in, t, ',');) tokens.push_back(t);
    if (tokens.empty()) throw InputError("model '': give layers such as " + std::string(kDefaultModelSpec));
    Shape3 shape = input;
    int conv_n = 0, pool_n = 0, dense_n = 0, relu_n = 0;
    std::int64_t offset = 0;
    auto add_relu = [&]() {
        Layer r;
        r.kind = LayerKind::Relu;
        r.name = "relu" + std::to_string(++relu_n);
        r.in = r.out = shape;
        m.layers.push_back(r);
    };
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string& t = tokens[i];
        const bool last = i + 1 == tokens.size();
        Layer l;
        l.in = shape;
        if (t.rfind("conv", 0) == 0) {
            l.kind = LayerKind::Conv;
            l.name = "conv" + std::to_string(++conv_n);
            l.kernel = kConvKernel;
            if (shape.h < kConvKernel || shape.w < kConvKernel)
                throw InputError("model '" + spec + "': " + l.name + " needs at least 3x3 pixels but gets " +
                                 shape.to_string() + "; use fewer layers or larger images");
            l.out = {parse_count(t, 4, spec), shape.h - kConvKernel + 1, shape.w - kConvKernel + 1};
            l.weight_count = l.out.c * shape.c * kConvKernel * kConvKernel;
            l.bias_count = l.out.c;
        } else if (t == "pool") {
            l.kind = LayerKind::MaxPool;
            l.name = "pool" + std::to_string(++pool_n);
            l.kernel = kPoolWindow;
            if (shape.h < kPoolWindow || shape.w < kPoolWindow)
                throw InputError("model '" + spec + "': " + l.name + " needs at least 2x2 pixels but gets " +
                                 shape.to_string() + "; use fewer layers or larger images");
            l.out = {shape.c, shape.h / kPoolWindow, shape.w / kPoolWindow};
        } else if (t.rfind("dense", 0) == 0) {
            l.kind = LayerKind::Dense;
            l.name = "dense" + std::to_string(++dense_n);
            l.out = {parse_count(t, 5, spec), 1, 1};
            l.weight_count = l.out.c * shape.size();
            l.bias_count = l.out.c;
        } else {
            throw InputError("model '" + spec + "': unknown layer '" + t + "'; use convN, pool and denseN, e.g. " +
                             kDefaultModelSpec);
        }
        if (last && (l.kind != LayerKind::Dense || l.out.c != classes))
            throw InputError("model '" + spec + "': the last layer must be dense" + std::to_string(classes) +
                             " (one output per class)");
        l.needs_input_gradient = !m.layers.empty();
        if (l.has_params()) {
            l.weight_offset = offset;
            l.bias_offset = offset + l.weight_count;
            offset += l.weight_count + l.bias_count;
        }
        m.layers.push_back(l);
        shape = l.out;
        if (l.kind != LayerKind::MaxPool && !last) add_relu();
    }
    m.parameter_count = offset;
    return m;
}

void check_training_fits(const ModelDesc& model, std::int64_t batch) {
    if (batch < 1) throw InputError("the batch must hold at least 1 image");
    const std::int64_t need = model.training_bytes(batch);
    if (const core::Availability room = core::check_host_allocation(static_cast<std::size_t>(need)); !room.ok)
        throw InputError("training " + model.spec + " with batches of " + std::to_string(batch) + " " + room.reason +
                         ": choose a smaller batch or a smaller model");
}

std::vector<float> init_params(const ModelDesc& model, std::uint64_t seed) {
    std::vector<float> p(static_cast<std::size_t>(model.parameter_count), 0.0f);
    std::mt19937_64 rng(seed);
    for (const Layer& l : model.layers) {
        if (!l.has_params()) continue;
        const std::int64_t fan_in = l.weight_count / l.out.c;
        const double limit = std::sqrt(6.0 / static_cast<double>(fan_in));
        for (std::int64_t i = 0; i < l.weight_count; ++i) {
            const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;  // [0, 1), 53 random bits
            p[static_cast<std::size_t>(l.weight_offset + i)] = static_cast<float>((2.0 * u - 1.0) * limit);
        }
    }
    return p;
}

}  // namespace gpulab::train
