// cpu-scalar (see cpu_scalar.h): the reference loops for the activations and for conv2d.
// Verified by tests/test_cpu_backends.cpp and tests/test_conv2d.cpp (hand-computed cases).
#include "cpu_scalar.h"

#include "measure/clock.h"
#include "cpu_limit.h"
#include "ops/hd_math.h"
#include "runtime/cancel.h"
#include "runtime/memory.h"

#include <algorithm>

namespace gpulab::cpu {

using namespace gpulab::core;

void activation_reference(const OpDesc& op, const float* in, float* out, int64_t n) {
    // One core, one element at a time: the "sequential" picture the lesson starts from. A stop
    // request is honoured between pieces of kCancelCheckElements (2^26 GELUs take about a second
    // here; the window must not wait for them).
    for (int64_t begin = 0; begin < n; begin += kCancelCheckElements) {
        throw_if_cancelled();
        const int64_t end = std::min<int64_t>(n, begin + kCancelCheckElements);
        for (int64_t i = begin; i < end; ++i) {
            const float x = in[i];
            switch (op.activation) {
                case Activation::Relu: out[i] = hd::relu(x); break;
                case Activation::LeakyRelu: out[i] = hd::leaky_relu(x, op.leaky_alpha); break;
                case Activation::Sigmoid: out[i] = hd::sigmoid(x); break;
                case Activation::Tanh: out[i] = hd::tanh_act(x); break;
                case Activation::Gelu: out[i] = hd::gelu(x); break;
            }
        }
    }
}

void conv2d_reference(const Conv2dDesc& d, const float* input, const float* filters, float* output) {
    // N,C,H,W in; K,C,R,S filters; N,K,P,Q out. Every output pixel (n, k, p, q) is independent of
    // every other one: this loop visits them one after another, a GPU gives each its own thread.
    const int64_t N = d.batch, C = d.channels, H = d.height, W = d.width;
    const int64_t K = d.filters, R = d.kernel, P = d.out_height(), Q = d.out_width();
    const int64_t pad = d.pad(), stride = d.stride;
    for (int64_t n = 0; n < N; ++n) {
        const float* image = input + n * C * H * W;
        for (int64_t k = 0; k < K; ++k) {
            const float* filter = filters + k * C * R * R;
            float* plane = output + (n * K + k) * P * Q;
            for (int64_t p = 0; p < P; ++p) {
                throw_if_cancelled();  // a row of outputs at a time: a CNN layer takes seconds on one core
                for (int64_t q = 0; q < Q; ++q) {
                    // The window's top-left corner is (p*stride - pad, q*stride - pad) in the input;
                    // taps that fall outside read zero (conv2d_point skips them).
                    plane[p * Q + q] = hd::conv2d_point(image, filter, C, H, W, R, pad, stride, p, q);
                }
            }
        }
    }
}

std::string conv2d_size_error(const Conv2dDesc& d, const Tensor& input, const Tensor& filters, const Tensor& output) {
    if (std::string bad = d.validate(); !bad.empty()) return bad;
    if (input.size() != d.input_elements()) {
        return "input has " + std::to_string(input.size()) + " elements, the shape needs " +
               std::to_string(d.input_elements());
    }
    if (filters.size() != d.filter_elements()) {
        return "filters have " + std::to_string(filters.size()) + " elements, the shape needs " +
               std::to_string(d.filter_elements());
    }
    if (output.size() != d.output_elements()) {
        return "output has " + std::to_string(output.size()) + " elements, the shape needs " +
               std::to_string(d.output_elements());
    }
    return "";
}

namespace {

class ScalarBackend final : public Backend {
public:
    std::string_view name() const override { return "cpu-scalar"; }
    std::string_view description() const override {
        return "The plain loop: one core applies the function to one element after another. The reference.";
    }
    BackendKind kind() const override { return BackendKind::Cpu; }
    Availability availability() const override { return {true, "always available"}; }
    bool supports(const OpDesc&) const override { return true; }
    Availability can_allocate(std::size_t bytes) const override { return check_host_allocation(bytes); }

    RunResult run(const OpDesc& op, const Tensor& in, Tensor& out) override {
        RunResult r;
        if (out.size() != in.size()) {
            r.error = "output has " + std::to_string(out.size()) + " elements, input " + std::to_string(in.size());
            return r;
        }
        int64_t t0 = now_ns();
        activation_reference(op, in.ptr(), out.ptr(), in.size());
        r.t.compute_ns = now_ns() - t0;
        r.ok = true;
        return r;
    }

    bool supports_conv2d(const Conv2dDesc& d) const override { return d.validate().empty(); }

    RunResult run_conv2d(const Conv2dDesc& d, const Tensor& input, const Tensor& filters, Tensor& output) override {
        RunResult r;
        r.error = conv2d_size_error(d, input, filters, output);
        if (!r.error.empty()) return r;
        const int64_t t0 = now_ns();
        conv2d_reference(d, input.ptr(), filters.ptr(), output.ptr());
        r.t.compute_ns = now_ns() - t0;
        r.ok = true;
        return r;
    }

    std::string conv2d_implementation(const Conv2dDesc&) const override {
        return "direct loops over N, K, P, Q; C, R, S summed per output (hd::conv2d_point), one core";
    }

    // The better of one memcpy and a scalar-store copy loop on this thread (cpu_limit.h).
    LimitResult bandwidth_limit(std::size_t bytes) override { return measure_single_thread_copy_limit(bytes); }
};

}  // namespace

std::unique_ptr<Backend> make_scalar_backend() { return std::make_unique<ScalarBackend>(); }

}  // namespace gpulab::cpu
