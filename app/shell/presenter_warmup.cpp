// The background GPU warm-up: see presenter_warmup.h.
#include "presenter_warmup.h"

#include <chrono>

#include "measure/format.h"
#include "gpu_model/gpu_model.h"
#include "gpu_backends.h"
#include "probes/latency_probe.h"
#include "ops/op_desc.h"
#include "ops/tensor.h"

namespace gpulab::app {

GpuWarmup::GpuWarmup() : thread_([this] { work(); }) {}

GpuWarmup::~GpuWarmup() {
    if (thread_.joinable()) thread_.join();
}

std::string GpuWarmup::status() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
}

void GpuWarmup::work() {
    const auto t0 = std::chrono::steady_clock::now();
    std::string result;
    const gpu::GpuProbe& p = gpu::probe();
    if (!p.compiled_in || !p.device_ok) {
        // Two words when there is no driver, as the timing rows say it: the Devices panel says why once
        // in full, with the runtime's exact error in its tooltip.
        const bool no_driver = !core::plain_gpu_reason(p.reason).empty();
        result = "no GPU to warm up: " +
                 (no_driver ? std::string("no GPU here") : p.reason.empty() ? std::string("no CUDA device") : p.reason);
    } else {
        const gpu::ColdStart cold = gpu::cold_start();
        // A few thousand elements: enough to load each backend's kernels and handles, far too
        // little to occupy the GPU or the PCIe bus when the first real run starts.
        core::Tensor in = core::Tensor::zeros({4096});
        core::Tensor out = core::Tensor::zeros({4096});
        core::OpDesc op;
        std::string warmed, failed;
        for (auto& b : gpu::make_backends()) {
            if (!b->availability().ok || !b->supports(op)) continue;
            const core::RunResult r = b->run(op, in, out);
            std::string& list = r.ok ? warmed : failed;
            list += (list.empty() ? "" : ", ") + std::string(b->name());
        }
        const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
                               .count();
        result = "GPU warmed up in " + core::format_duration(ns);
        if (cold.ok) result += " (context " + core::format_duration(cold.context_ns) + ")";
        result += warmed.empty() ? ": no backend ran" : ": " + warmed;
        if (!failed.empty()) result += "; failed: " + failed;
        ok_ = !warmed.empty();
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        status_ = std::move(result);
    }
    done_ = true;
}

}  // namespace gpulab::app
