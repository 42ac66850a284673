// Failures on demand: see fault_injection.h. The wrapper forwards everything to the real backend;
// only run() and run_conv2d() count calls and fail on the planned one.
#include "fault_injection.h"

#include <cstdlib>
#include <utility>

namespace gpulab::core {

namespace {

// Shared by every wrapped backend of one list.
struct FaultPlan {
    FaultSpec spec;
    int runs = 0;               // runs of the named backend so far
    std::string sticky_reason;  // set by a "lost" fault; GPU backends are unavailable from then on
};

std::string fault_message(const FaultSpec& s) {
    switch (s.kind) {
        case FaultKind::Alloc: return s.backend + ": out of memory allocating the buffers (injected fault)";
        case FaultKind::Fault: return s.backend + ": kernel fault: an illegal memory access was encountered (injected fault)";
        case FaultKind::Lost: return s.backend + ": the GPU context was lost; restart gpulab to use the GPU again (injected fault)";
    }
    return "";
}

class FaultyBackend : public Backend {
public:
    FaultyBackend(std::unique_ptr<Backend> inner, std::shared_ptr<FaultPlan> plan)
        : inner_(std::move(inner)), plan_(std::move(plan)) {}

    std::string_view name() const override { return inner_->name(); }
    std::string_view description() const override { return inner_->description(); }
    BackendKind kind() const override { return inner_->kind(); }
    Availability availability() const override {
        if (sticky()) return {false, plan_->sticky_reason};
        return inner_->availability();
    }
    bool supports(const OpDesc& op) const override { return inner_->supports(op); }
    Availability can_allocate(std::size_t bytes) const override { return inner_->can_allocate(bytes); }
    RunResult run(const OpDesc& op, const Tensor& in, Tensor& out) override {
        if (auto failed = planned_failure()) return *failed;
        return inner_->run(op, in, out);
    }
    LimitResult bandwidth_limit(std::size_t bytes) override { return inner_->bandwidth_limit(bytes); }
    const void* device_output() const override { return inner_->device_output(); }
    bool supports_conv2d(const Conv2dDesc& d) const override { return inner_->supports_conv2d(d); }
    RunResult run_conv2d(const Conv2dDesc& d, const Tensor& input, const Tensor& filters, Tensor& output) override {
        if (auto failed = planned_failure()) return *failed;
        return inner_->run_conv2d(d, input, filters, output);
    }
    std::string conv2d_implementation(const Conv2dDesc& d) const override { return inner_->conv2d_implementation(d); }

private:
    // A lost context stays lost for the code that runs on the GPU: the real GPU backends and
    // cuda-sim, which runs the same kernels (kind Simulated). CPU backends have no context.
    bool sticky() const { return !plan_->sticky_reason.empty() && inner_->kind() != BackendKind::Cpu; }

    std::optional<RunResult> planned_failure() {
        if (sticky()) return RunResult{false, plan_->sticky_reason, {}};
        if (inner_->name() != plan_->spec.backend || ++plan_->runs != plan_->spec.run) return std::nullopt;
        const std::string message = fault_message(plan_->spec);
        if (plan_->spec.kind == FaultKind::Lost) plan_->sticky_reason = message;
        return RunResult{false, message, {}};
    }

    std::unique_ptr<Backend> inner_;
    std::shared_ptr<FaultPlan> plan_;
};

}  // namespace

std::optional<FaultSpec> parse_fault_spec(const std::string& text, std::string& error) {
    const auto a = text.find(':');
    const auto b = a == std::string::npos ? std::string::npos : text.find(':', a + 1);
    error = "GPULAB_INJECT_FAULT='" + text + "' is not <backend>:<run>:<alloc|fault|lost>";
    if (b == std::string::npos || a == 0) return std::nullopt;
    FaultSpec s;
    s.backend = text.substr(0, a);
    const std::string run = text.substr(a + 1, b - a - 1), kind = text.substr(b + 1);
    if (run.empty() || run.size() > 6 || run.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    s.run = std::atoi(run.c_str());
    if (s.run < 1) return std::nullopt;
    if (kind == "alloc") s.kind = FaultKind::Alloc;
    else if (kind == "fault") s.kind = FaultKind::Fault;
    else if (kind == "lost") s.kind = FaultKind::Lost;
    else return std::nullopt;
    error.clear();
    return s;
}

void inject_fault(BackendList& list, const FaultSpec& spec) {
    auto plan = std::make_shared<FaultPlan>();
    plan->spec = spec;
    for (auto& b : list) b = std::make_unique<FaultyBackend>(std::move(b), plan);
}

std::string inject_fault_from_environment(BackendList& list) {
    const char* text = std::getenv("GPULAB_INJECT_FAULT");
    if (text == nullptr || *text == '\0') return "";
    std::string error;
    const std::optional<FaultSpec> spec = parse_fault_spec(text, error);
    if (!spec) return error;
    inject_fault(list, *spec);
    return "";
}

}  // namespace gpulab::core
