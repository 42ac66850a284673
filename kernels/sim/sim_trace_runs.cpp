// Traced runs of the real kernels: see sim_trace_runs.h. The launches are sim::run_conv2d and
// sim::run_activation (sim_kernels.h), the same calls cuda-sim makes, with Options::trace set.
#include "sim_trace_runs.h"

#include <algorithm>
#include <cstring>
#include <exception>

#include "sim_kernels.h"

namespace gpulab::sim {

ConvBlockTrace trace_conv2d_block(const core::Conv2dDesc& d, const core::Tensor& input, const core::Tensor& filters,
                                  unsigned bx, unsigned by) {
    ConvBlockTrace t;
    try {
        t.error = kern::conv2d_kernel_problem(d);
        if (!t.error.empty()) return t;
        if (kern::conv2d_kernel_for(d) != kern::Conv2dKernel::Tiled) {
            t.error = "the tiled kernel does not run stride " + std::to_string(d.stride) + " (the naive one does)";
            return t;
        }
        if (input.size() != d.input_elements() || filters.size() != d.filter_elements()) {
            t.error = "tensors do not match " + d.to_string();
            return t;
        }
        t.shape = kern::conv2d_shape(d);
        t.launch = kern::conv2d_launch(kern::Conv2dKernel::Tiled, t.shape);
        Buffer<float> in("input", input.data.size());
        Buffer<float> f("filters", filters.data.size());
        Buffer<float> out("output", static_cast<std::size_t>(d.output_elements()));
        std::memcpy(in.data(), input.ptr(), input.bytes());
        std::memcpy(f.data(), filters.ptr(), filters.bytes());
        Options o;
        o.trace = &t.trace;
        o.trace_block = {bx, by, 0};
        const Result r = run_conv2d(kern::Conv2dKernel::Tiled, t.shape, in.cptr(), f.cptr(), out.ptr(), o);
        if (!r.ok) {
            t.error = r.error;
            return t;
        }
        t.requests = warp_requests(t.trace);
        t.ok = true;
    } catch (const std::exception& e) {
        t.error = std::string("tracing the tiled convolution: ") + e.what();
    }
    return t;
}

ActivationTrace trace_activation_block(const core::OpDesc& op, int64_t n, int in_offset, int out_offset) {
    ActivationTrace t;
    t.in_offset = in_offset;
    t.out_offset = out_offset;
    if (n <= 0 || in_offset < 0 || in_offset > 3 || out_offset < 0 || out_offset > 3) {
        t.error = "trace_activation_block: n must be positive and the offsets 0..3 floats";
        return t;
    }
    try {
        Buffer<float> in("in", static_cast<std::size_t>(n + in_offset));
        Buffer<float> out("out", static_cast<std::size_t>(n + out_offset));
        for (int64_t i = 0; i < n; ++i) in.data()[in_offset + i] = static_cast<float>(i % 7) - 3.0f;
        const GlobalPtr<const float> pin = in.ptr_at(static_cast<std::size_t>(in_offset));
        const GlobalPtr<float> pout = out.ptr_at(static_cast<std::size_t>(out_offset));
        t.split = kern::activation_split(reinterpret_cast<std::uintptr_t>(pin.raw()),
                                         reinterpret_cast<std::uintptr_t>(pout.raw()), n);
        t.launch = kern::activation_launch(t.split, model_resident_blocks(static_cast<int>(kern::kActivationThreads)));
        Options o;
        o.trace = &t.trace;
        const Result r = run_activation(op, pin, pout, n, o);
        if (!r.ok) {
            t.error = r.error;
            return t;
        }
        const auto& names = t.trace.regions;
        t.in_region = static_cast<int>(std::find(names.begin(), names.end(), "in") - names.begin());
        if (t.in_region == static_cast<int>(names.size())) t.in_region = -1;
        t.requests = warp_requests(t.trace);
        t.ok = true;
    } catch (const std::exception& e) {
        t.error = std::string("tracing the activation kernel: ") + e.what();
    }
    return t;
}

}  // namespace gpulab::sim
