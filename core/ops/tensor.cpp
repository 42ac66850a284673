#include "tensor.h"

#include <algorithm>

namespace gpulab::core {

int64_t element_count(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

Tensor Tensor::zeros(std::vector<int64_t> shape) {
    Tensor t;
    t.data.assign(static_cast<std::size_t>(element_count(shape)), 0.0f);
    t.shape = std::move(shape);
    return t;
}

Tensor Tensor::zeros(std::vector<int64_t> shape, const std::function<void()>& between_pieces) {
    Tensor t;
    const auto n = static_cast<std::size_t>(element_count(shape));
    t.data.reserve(n);  // one allocation; the pages are touched below, a piece at a time
    while (t.data.size() < n) {
        if (between_pieces) between_pieces();
        t.data.insert(t.data.end(), std::min<std::size_t>(kZeroPieceFloats, n - t.data.size()), 0.0f);
    }
    t.shape = std::move(shape);
    return t;
}

std::string Tensor::shape_string() const {
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    if (shape.size() == 1) s += ",";
    return s + ")";
}

}  // namespace gpulab::core
