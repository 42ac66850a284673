// cuda-kernel's training engine in a build without a CUDA compiler: listed, never runnable.
// availability() says "CUDA not compiled in" and every call that would train refuses with that
// sentence (std::runtime_error), so no list or CLI ever needs to special-case the CPU-only build.
#include <stdexcept>

#include "gpu_train_engines.h"

namespace gpulab::gpu {

namespace {

constexpr const char* kNotCompiled =
    "CUDA not compiled in: this gpulab was built without a CUDA compiler (install the CUDA Toolkit and rebuild)";

class AbsentTrainEngine final : public train::TrainEngine {
public:
    std::string_view name() const override { return "cuda-kernel"; }
    std::string_view description() const override { return "our own CUDA kernels for every layer (not built)"; }
    core::Availability availability() const override { return {false, kNotCompiled}; }
    core::BackendKind kind() const override { return core::BackendKind::Gpu; }
    // The built engine's rule, so `gpulab train --precision` answers the same in every build.
    void set_compute_precision(train::ComputePrecision p) override {
        check_kernel_engine_precision(*this, p);
        train::TrainEngine::set_compute_precision(p);
    }
    void setup(const train::ModelDesc&, const std::vector<float>&, std::int64_t) override { refuse(); }
    void forward(const float*, std::int64_t) override { refuse(); }
    train::BatchResult backward(const std::uint8_t*) override { refuse(); }
    void step(const train::Sgd&) override { refuse(); }
    std::vector<float> logits() const override { return {}; }
    std::vector<float> gradients() const override { return {}; }
    std::vector<float> params() const override { return {}; }
    std::vector<train::LayerTime> layer_times() const override { return {}; }

private:
    [[noreturn]] static void refuse() { throw std::runtime_error(std::string("cuda-kernel: ") + kNotCompiled); }
};

}  // namespace

std::unique_ptr<train::TrainEngine> make_cuda_kernel_train_engine() { return std::make_unique<AbsentTrainEngine>(); }

const train::CpuLayerOps* cuda_train_layer_ops() { return nullptr; }

}  // namespace gpulab::gpu
