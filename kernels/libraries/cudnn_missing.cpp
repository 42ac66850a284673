// The "cudnn" backend of a CUDA build that found no usable cuDNN headers (cudnn.h of major 9) at configure time:
// it is still listed, so the Devices panel and `gpulab info` can say why it is absent, and it
// never runs. Plain C++: compiled in place of cudnn_backend.cu, without nvcc or cuDNN headers.
//
// Verified by tests/test_gpu_backends.cpp, "backends" suite (listed, reason non-empty, run()
// returns ok=false without throwing) when built with cuDNN absent.
#include <memory>
#include <string>

#include "gpu_internal.h"

namespace gpulab::gpu::detail {

namespace {

// The configure's sentence (cmake/Cuda.cmake): no cudnn.h, or a cudnn.h of another major version.
constexpr const char* kNotFound = GPULAB_CUDNN_WHY;

class MissingCudnnBackend final : public core::Backend {
public:
    std::string_view name() const override { return "cudnn"; }
    std::string_view description() const override { return "NVIDIA cuDNN library (not found at build time)"; }
    core::BackendKind kind() const override { return core::BackendKind::Gpu; }
    core::Availability availability() const override { return {false, kNotFound}; }
    bool supports(const core::OpDesc&) const override { return false; }
    core::Availability can_allocate(std::size_t) const override { return {false, kNotFound}; }
    core::RunResult run(const core::OpDesc&, const core::Tensor&, core::Tensor&) override {
        return {false, kNotFound, {}};
    }
    core::LimitResult bandwidth_limit(std::size_t) override { return {false, "D2D copy", 0.0, kNotFound}; }
};

}  // namespace

std::unique_ptr<core::Backend> make_cudnn_backend() { return std::make_unique<MissingCudnnBackend>(); }

void probe_cudnn(GpuProbe& p) {
    p.cudnn_compiled_in = false;
    p.cudnn_ok = false;
    p.cudnn_reason = kNotFound;
}

}  // namespace gpulab::gpu::detail

namespace gpulab::gpu {

core::Availability check_cudnn_library(const std::string&) { return {false, detail::kNotFound}; }

}  // namespace gpulab::gpu
