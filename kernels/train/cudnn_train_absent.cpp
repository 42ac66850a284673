// The cudnn training engine of a build that cannot have it (no CUDA compiler, no cuDNN 9 headers,
// or no cuBLAS header at configure time): listed, unavailable, and saying why; setup() refuses with
// the same sentence, and check_cublas_library answers it too (cublas_library.cpp is not built).
// GPULAB_CUDNN_TRAIN_WHY comes from kernels/CMakeLists.txt.
#include "cudnn_train_engine.h"
#include "cudnn_train_plan.h"
#include "gpu_backends.h"
#include "io/image_io.h"
#include "train/loss_scaling.h"

namespace gpulab::gpu {

namespace {

class AbsentCudnnTrainEngine final : public train::TrainEngine {
public:
    std::string_view name() const override { return "cudnn"; }
    core::BackendKind kind() const override { return core::BackendKind::Gpu; }
    std::string_view description() const override { return "NVIDIA's cuDNN and cuBLAS (not built)"; }
    core::Availability availability() const override { return {false, GPULAB_CUDNN_TRAIN_WHY}; }
    // The built engine's rule (FP32, TF32 and FP16 mixed; BF16 refused with its sentence), and its
    // sentences before setup, so the command line answers the same in every build; setup() then
    // says why cudnn cannot run here.
    void set_compute_precision(train::ComputePrecision p) override {
        cuda::train_plan::check_cudnn_precision(p);
        asked_ = p;
    }
    void set_loss_scale(float fixed_scale) override { train::check_loss_scale(fixed_scale); }
    std::string precision() const override {
        if (asked_ == train::ComputePrecision::Tf32) return cuda::train_plan::tf32_precision_text(-1, 0, 0, 0);
        if (asked_ == train::ComputePrecision::Fp16Mixed)
            return cuda::train_plan::fp16_precision_text(-1, 0, 0, 0, train::LossScaler{});
        return "FP32";
    }
    void setup(const train::ModelDesc&, const std::vector<float>&, std::int64_t) override {
        throw core::InputError(std::string("cudnn is not available: ") + GPULAB_CUDNN_TRAIN_WHY);
    }
    void forward(const float*, std::int64_t) override {}
    train::BatchResult backward(const std::uint8_t*) override { return {}; }
    void step(const train::Sgd&) override {}
    std::vector<float> logits() const override { return {}; }
    std::vector<float> gradients() const override { return {}; }
    std::vector<float> params() const override { return {}; }
    std::vector<train::LayerTime> layer_times() const override { return {}; }

private:
    train::ComputePrecision asked_ = train::ComputePrecision::Fp32;
};

}  // namespace

std::unique_ptr<train::TrainEngine> make_cudnn_train_engine() { return std::make_unique<AbsentCudnnTrainEngine>(); }

core::Availability check_cublas_library(const std::string&) { return {false, GPULAB_CUDNN_TRAIN_WHY}; }

}  // namespace gpulab::gpu
