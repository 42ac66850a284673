// cpu-onednn when oneDNN was not found at build time: present in the list, unavailable, with the
// reason, so the UI and `gpulab info` can say why (and nothing else changes). Compiled instead of
// cpu_onednn.cpp by core/CMakeLists.txt. Verified by tests/test_cpu_backends.cpp.
#include <string>

#include "cpu_onednn.h"

namespace gpulab::cpu {

namespace {

// The configure's sentence (core/CMakeLists.txt): not installed, or installed but its CMake config broken.
constexpr const char* kReason = GPULAB_ONEDNN_WHY;

class OnednnAbsent final : public core::Backend {
public:
    std::string_view name() const override { return "cpu-onednn"; }
    std::string_view description() const override { return "oneDNN eltwise primitives (not built in)"; }
    core::BackendKind kind() const override { return core::BackendKind::Cpu; }
    core::Availability availability() const override { return {false, kReason}; }
    bool supports(const core::OpDesc&) const override { return false; }
    core::Availability can_allocate(std::size_t) const override { return {false, kReason}; }
    core::RunResult run(const core::OpDesc&, const core::Tensor&, core::Tensor&) override {
        core::RunResult r;
        r.error = kReason;
        return r;
    }
    core::LimitResult bandwidth_limit(std::size_t) override {
        core::LimitResult l;
        l.error = kReason;
        return l;
    }
};

}  // namespace

std::unique_ptr<core::Backend> make_onednn_backend() { return std::make_unique<OnednnAbsent>(); }

std::string onednn_implementation(const core::OpDesc&, int64_t) { return kReason; }

}  // namespace gpulab::cpu
