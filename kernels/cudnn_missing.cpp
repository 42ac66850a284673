// The "cudnn" backend of a CUDA build that found no cuDNN (cudnn.h / libcudnn) at configure time:
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

constexpr const char* kNotFound =
    "cuDNN not found at build time: install cuDNN 9 (cudnn.h and libcudnn) and re-run CMake to build this backend";

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
