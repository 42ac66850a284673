#include "cpu_scalar.h"

#include "clock.h"
#include "cpu_limit.h"
#include "hd_math.h"
#include "memory.h"

namespace gpulab::cpu {

using namespace gpulab::core;

void activation_reference(const OpDesc& op, const float* in, float* out, int64_t n) {
    // One core, one element at a time: the "sequential" picture the lesson starts from.
    for (int64_t i = 0; i < n; ++i) {
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

    // The better of one memcpy and a scalar-store copy loop on this thread (cpu_limit.h).
    LimitResult bandwidth_limit(std::size_t bytes) override { return measure_single_thread_copy_limit(bytes); }
};

}  // namespace

std::unique_ptr<Backend> make_scalar_backend() { return std::make_unique<ScalarBackend>(); }

}  // namespace gpulab::cpu
