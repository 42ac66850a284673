// Injected failures (core/backends/fault_injection.h): a backend that fails in the middle of a run leaves
// the workload running with the message in that backend's report, and a sticky "context lost"
// takes every GPU backend down with the reason while the CPU backends keep working.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "backends/backend.h"
#include "sim/cuda_sim_backend.h"
#include "backends/fault_injection.h"
#include "workloads/activation_workload.h"

using namespace gpulab::core;

namespace {

// cpu-parallel dressed as a GPU backend, so the sticky rule can be tested on a machine with no GPU.
class PretendGpu : public Backend {
public:
    PretendGpu(std::unique_ptr<Backend> inner, std::string name) : inner_(std::move(inner)), name_(std::move(name)) {}
    std::string_view name() const override { return name_; }
    std::string_view description() const override { return "test stand-in for a GPU backend"; }
    BackendKind kind() const override { return BackendKind::Gpu; }
    Availability availability() const override { return {true, ""}; }
    bool supports(const OpDesc& op) const override { return inner_->supports(op); }
    Availability can_allocate(std::size_t bytes) const override { return inner_->can_allocate(bytes); }
    RunResult run(const OpDesc& op, const Tensor& in, Tensor& out) override { return inner_->run(op, in, out); }
    LimitResult bandwidth_limit(std::size_t bytes) override { return inner_->bandwidth_limit(bytes); }

private:
    std::unique_ptr<Backend> inner_;
    std::string name_;
};

BackendList cpu_and_pretend_gpus() {
    BackendList list = make_cpu_backends();
    list.resize(2);  // cpu-scalar, cpu-parallel
    list.push_back(std::make_unique<PretendGpu>(std::move(make_cpu_backends()[1]), "cuda-kernel"));
    list.push_back(std::make_unique<PretendGpu>(std::move(make_cpu_backends()[1]), "cudnn"));
    return list;
}

std::vector<Backend*> raw(const BackendList& list) {
    std::vector<Backend*> v;
    for (const auto& b : list) v.push_back(b.get());
    return v;
}

MeasureConfig quick() {
    MeasureConfig c;
    c.warmup = 1;
    c.min_samples = 3;
    c.max_samples = 3;
    c.time_budget_ns = 0;
    c.measure_limits = false;
    return c;
}

ActivationParams small() {
    ActivationParams p;
    p.elements = 4096;
    return p;
}

}  // namespace

TEST_SUITE("fault-injection") {
    TEST_CASE("the spec is parsed strictly") {
        std::string error;
        auto s = parse_fault_spec("cuda-kernel:3:lost", error);
        REQUIRE(s);
        CHECK(s->backend == "cuda-kernel");
        CHECK(s->run == 3);
        CHECK(s->kind == FaultKind::Lost);
        for (const char* bad : {"", "cuda-kernel", "cuda-kernel:0:lost", "cuda-kernel:x:lost", ":1:fault",
                                "cuda-kernel:2:melt", "cuda-kernel:99999999999:fault"}) {
            CAPTURE(bad);
            CHECK_FALSE(parse_fault_spec(bad, error));
            CHECK(error.find("is not <backend>:<run>:<alloc|fault|lost>") != std::string::npos);
        }
    }

    TEST_CASE("a kernel fault in the middle of a run is that backend's error: the others still run") {
        BackendList list = cpu_and_pretend_gpus();
        inject_fault(list, {"cuda-kernel", 3, FaultKind::Fault});
        const ActivationRun run = run_activation(small(), raw(list), quick());
        REQUIRE(run.reports.size() == 4);
        CHECK(run.reports[0].ran);
        CHECK(run.reports[1].ran);
        CHECK(run.reports[2].error.find("illegal memory access was encountered (injected fault)") != std::string::npos);
        CHECK(run.reports[3].ran);
        CHECK(run.reports[3].error.empty());
        // A fault is not sticky: the next run of the same backend works.
        const ActivationRun again = run_activation(small(), raw(list), quick());
        CHECK(again.reports[2].ran);
        CHECK(again.reports[2].error.empty());
    }

    TEST_CASE("an allocation failure is a message - not an exception") {
        BackendList list = cpu_and_pretend_gpus();
        inject_fault(list, {"cpu-parallel", 1, FaultKind::Alloc});
        const ActivationRun run = run_activation(small(), raw(list), quick());
        CHECK(run.reports[1].error.find("out of memory") != std::string::npos);
        CHECK(run.reports[0].ran);
        CHECK(run.reports[2].ran);
    }

    TEST_CASE("a lost context marks every GPU backend unavailable with the reason: the CPU keeps working") {
        BackendList list = cpu_and_pretend_gpus();
        inject_fault(list, {"cuda-kernel", 2, FaultKind::Lost});
        const ActivationRun run = run_activation(small(), raw(list), quick());
        CHECK(run.reports[2].error.find("GPU context was lost") != std::string::npos);
        for (int i : {2, 3}) {
            CAPTURE(i);
            CHECK_FALSE(list[static_cast<std::size_t>(i)]->availability().ok);
            CHECK(list[static_cast<std::size_t>(i)]->availability().reason.find("GPU context was lost") !=
                  std::string::npos);
        }
        const ActivationRun after = run_activation(small(), raw(list), quick());
        CHECK(after.reports[0].ran);
        CHECK(after.reports[1].ran);
        CHECK_FALSE(after.reports[2].ran);
        CHECK_FALSE(after.reports[3].ran);
        CHECK(after.reports[3].availability.reason.find("GPU context was lost") != std::string::npos);
    }

    TEST_CASE("cuda-sim (the real CUDA kernels) fails mid-run by each kind and a lost context is sticky") {
        // The simulator runs gpulab's CUDA kernels on any machine, so the wrapper is tested here around a
        // backend that runs the GPU's code (of kind Simulated since issue 14: never timed as a GPU),
        // next to the CPU backends, through the workload.
        for (const FaultKind kind : {FaultKind::Alloc, FaultKind::Fault, FaultKind::Lost}) {
            CAPTURE(static_cast<int>(kind));
            BackendList list = make_cpu_backends();
            list.resize(2);  // cpu-scalar, cpu-parallel
            list.push_back(gpulab::sim::make_cuda_sim_backend());
            REQUIRE(list[2]->kind() == BackendKind::Simulated);
            REQUIRE(list[2]->availability().ok);
            inject_fault(list, {"cuda-sim", 1, kind});  // simulated: run once per measurement, not timed
            const ActivationRun run = run_activation(small(), raw(list), quick());
            REQUIRE(run.reports.size() == 3);
            CHECK(run.ok);  // the run as a whole goes on: the failure is one backend's row
            CHECK(run.reports[0].ran);
            CHECK(run.reports[1].ran);
            CHECK_FALSE(run.reports[2].ran);
            const char* expected = kind == FaultKind::Alloc ? "cuda-sim: out of memory"
                                   : kind == FaultKind::Fault ? "cuda-sim: kernel fault: an illegal memory access"
                                                              : "cuda-sim: the GPU context was lost";
            CHECK(run.reports[2].error.find(expected) == 0);
            const ActivationRun after = run_activation(small(), raw(list), quick());
            CHECK(after.reports[0].ran);
            CHECK(after.reports[1].ran);
            if (kind == FaultKind::Lost) {
                CHECK_FALSE(list[2]->availability().ok);
                CHECK(list[2]->availability().reason.find("restart gpulab to use the GPU again") != std::string::npos);
                CHECK_FALSE(after.reports[2].ran);
                CHECK(after.reports[2].availability.reason.find("GPU context was lost") != std::string::npos);
            } else {
                CHECK(list[2]->availability().ok);  // alloc and fault are not sticky
                CHECK(after.reports[2].ran);
                CHECK(after.reports[2].error.empty());
            }
        }
    }
}
