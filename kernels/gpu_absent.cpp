// The GPU entry points for a build without a CUDA compiler: every GPU backend exists, so the
// Devices panel can list it, and says plainly that CUDA was not compiled in. The latency probes
// (latency_probe.h), the divergence kernel (divergence.h) and the tensor-core GEMM (tensor_gemm.h)
// answer the same way: ok=false with that sentence, nothing measured.
//
// Verified by the "backends" suites of tests/test_gpu_backends.cpp and tests/test_gpu_latency.cpp
// and tests/test_gpu_divergence.cpp in a build configured with GPULAB_ENABLE_CUDA=OFF.
#include <cstddef>
#include <memory>

#include "probes/divergence.h"
#include "interop/gl_interop.h"
#include "gpu_backends.h"
#include "gpu_testing.h"
#include "probes/latency_probe.h"
#include "tensor/tensor_gemm.h"

namespace gpulab::gpu {

namespace {

constexpr const char* kNotCompiled =
    "CUDA not compiled in: this gpulab was built without a CUDA compiler (install the CUDA Toolkit and rebuild)";

class MissingGpuBackend final : public core::Backend {
public:
    MissingGpuBackend(std::string_view name, std::string_view description) : name_(name), description_(description) {}
    std::string_view name() const override { return name_; }
    std::string_view description() const override { return description_; }
    core::BackendKind kind() const override { return core::BackendKind::Gpu; }
    core::Availability availability() const override { return {false, kNotCompiled}; }
    bool supports(const core::OpDesc&) const override { return false; }
    core::Availability can_allocate(std::size_t) const override { return {false, kNotCompiled}; }
    core::RunResult run(const core::OpDesc&, const core::Tensor&, core::Tensor&) override {
        return {false, kNotCompiled, {}};
    }
    core::LimitResult bandwidth_limit(std::size_t) override { return {false, "D2D copy", 0.0, kNotCompiled}; }

private:
    std::string_view name_, description_;
};

}  // namespace

const GpuProbe& probe() {
    static const GpuProbe p = [] {
        GpuProbe g;
        g.reason = kNotCompiled;
        g.cudnn_reason = "cuDNN not compiled in (no CUDA build)";
        return g;
    }();
    return p;
}

core::BackendList make_backends() {
    core::BackendList list;
    list.push_back(std::make_unique<MissingGpuBackend>("cuda-kernel", "Hand-written CUDA kernels (not built)"));
    list.push_back(std::make_unique<MissingGpuBackend>("cudnn", "NVIDIA cuDNN library (not built)"));
    return list;
}

core::BackendList make_conv2d_extra_backends() {
    core::BackendList list;
    list.push_back(
        std::make_unique<MissingGpuBackend>("cuda-naive", "One-thread-per-output CUDA convolution (not built)"));
    return list;
}

// Nothing to wait for here: probe() returns at once.
bool probe_ready() { return true; }

const GpuProbe& probe_now() { return probe(); }

int conv2d_tiled_blocks_per_sm(int, int) { return 0; }

std::string version_summary() { return "CUDA not compiled in"; }

core::Availability check_cudnn_library(const std::string&) { return {false, kNotCompiled}; }

InteropCheck check_gl_interop() { return {false, "host upload: CUDA not compiled in"}; }

std::unique_ptr<GlTextureInterop> register_gl_texture(unsigned, int, int, std::string& why) {
    why = "CUDA not compiled in";
    return nullptr;
}

core::RunResult run_activation_at_offsets(const core::OpDesc&, const core::Tensor&, core::Tensor&, int, int) {
    return {false, kNotCompiled, {}};
}

LaunchCosts measure_launch_costs(int, int) {
    LaunchCosts r;
    r.error = kNotCompiled;
    return r;
}

CopyBandwidth measure_copy_bandwidth(std::size_t bytes, int) {
    CopyBandwidth r;
    r.bytes = bytes;
    r.error = kNotCompiled;
    return r;
}

MmaGemmRun run_mma_gemm(kern::MmaInput, const float*, const float*, float*, int64_t, int64_t, int64_t, kern::MmaKernel) {
    MmaGemmRun r;
    r.error = kNotCompiled;
    return r;
}

DivergenceRun run_divergence(simt::Pattern pattern, int64_t elements, int iterations, int, int) {
    DivergenceRun r;
    r.pattern = pattern;
    r.elements = elements;
    r.iterations = iterations;
    r.error = kNotCompiled;
    return r;
}

ColdStart cold_start() {
    ColdStart c;
    c.error = kNotCompiled;
    return c;
}

}  // namespace gpulab::gpu
