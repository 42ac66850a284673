// Backends "cuda-sim" and "cuda-sim-naive" (see cuda_sim_backend.h): a run copies the input into
// simulator buffers (the upload), launches the kernel on the simulator with the CUDA launcher's
// configuration (compute), and copies the output back (download). Phases use the host clock: they
// say how long the simulation took, nothing about a GPU.
#include "cuda_sim_backend.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <string>

#include "conv2d/conv2d_launch.h"
#include "runtime/cancel.h"
#include "runtime/memory.h"
#include "sim_kernels.h"

namespace gpulab::sim {

namespace {

// Multiply-adds a simulated convolution may take: 2^27 is about 3 s of one core at the measured 3.9 M
// tiled threads per second with 9 taps each (docs/benchmarks.md); the lessons' defaults are far below.
constexpr double kMaxConv2dWork = 134217728.0;

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

class CudaSimBackend final : public core::Backend {
public:
    explicit CudaSimBackend(bool naive) : naive_(naive) {}

    std::string_view name() const override { return naive_ ? "cuda-sim-naive" : "cuda-sim"; }
    std::string_view description() const override {
        return naive_ ? "cuda-naive's CUDA kernel, simulated on the CPU: every CUDA thread a fiber, every access "
                        "checked. Its time is the simulator's, not a GPU speed."
                      : "the CUDA kernel, simulated on the CPU: cuda-kernel's own kernel code, every CUDA thread a "
                        "fiber, __syncthreads a real barrier, every access checked. Its results are real; its time "
                        "is the simulator's, not a GPU speed.";
    }
    // Not Gpu: its results count, its time never does (core/backends/backend.h).
    core::BackendKind kind() const override { return core::BackendKind::Simulated; }
    core::Availability availability() const override { return {true, ""}; }
    bool supports(const core::OpDesc& op) const override { return !naive_ && op.kind == core::OpKind::Activation; }
    core::Availability can_allocate(std::size_t bytes) const override { return core::check_host_allocation(bytes); }
    core::LimitResult bandwidth_limit(std::size_t) override {
        return {false, "none", 0.0,
                std::string(name()) + " has no bandwidth of its own: it is the CPU simulating a GPU kernel"};
    }

    core::RunResult run(const core::OpDesc& op, const core::Tensor& in, core::Tensor& out) override {
        core::RunResult r;
        if (!supports(op)) {
            r.error = std::string(name()) + " does not offer " + op.label();
            return r;
        }
        if (out.size() != in.size()) {
            r.error = "output has " + std::to_string(out.size()) + " elements, input " + std::to_string(in.size());
            return r;
        }
        return run_activation_at(op, in, out, 0, 0);
    }

    // Shapes the GPU kernels accept, up to what simulates in a few seconds (kMaxConv2dWork).
    bool supports_conv2d(const core::Conv2dDesc& d) const override {
        return kern::conv2d_kernel_problem(d).empty() &&
               static_cast<double>(d.output_elements()) * static_cast<double>(d.channels * d.kernel * d.kernel) <=
                   kMaxConv2dWork;
    }
    std::string conv2d_implementation(const core::Conv2dDesc& d) const override {
        if (!supports_conv2d(d)) return "";
        return std::string(kern::conv2d_kernel_label(which(d))) + " (simulated on the CPU)";
    }

    core::RunResult run_conv2d(const core::Conv2dDesc& d, const core::Tensor& input, const core::Tensor& filters,
                               core::Tensor& output) override {
        core::RunResult r;
        const std::string problem = kern::conv2d_kernel_problem(d);
        if (!problem.empty()) {
            r.error = problem;
            return r;
        }
        if (input.size() != d.input_elements() || filters.size() != d.filter_elements() ||
            output.size() != d.output_elements()) {
            r.error = "tensors do not match the shape: expected " + std::to_string(d.input_elements()) + ", " +
                      std::to_string(d.filter_elements()) + " and " + std::to_string(d.output_elements()) +
                      " elements, got " + std::to_string(input.size()) + ", " + std::to_string(filters.size()) +
                      " and " + std::to_string(output.size());
            return r;
        }
        try {
            const int64_t t0 = now_ns();
            Buffer<float> d_in("input", input.data.size());
            Buffer<float> d_filters("filters", filters.data.size());
            Buffer<float> d_out("output", output.data.size());
            std::memcpy(d_in.data(), input.ptr(), input.bytes());
            std::memcpy(d_filters.data(), filters.ptr(), filters.bytes());
            const int64_t t1 = now_ns();
            const Result s = sim::run_conv2d(which(d), kern::conv2d_shape(d), d_in.cptr(), d_filters.cptr(),
                                             d_out.ptr(), counted());
            const int64_t t2 = now_ns();
            if (!s.ok) {
                r.error = s.error;
                return r;
            }
            std::memcpy(output.ptr(), d_out.data(), output.bytes());
            r.t = {t1 - t0, t2 - t1, now_ns() - t2, t2 - t1};
            r.moved_bytes = 32 * s.stats.global_sectors;
            r.unique_bytes = static_cast<int64_t>(input.bytes() + filters.bytes() + output.bytes());
            r.ok = true;
        } catch (const std::exception& e) {
            r.error = std::string(name()) + ": " + e.what();
        }
        return r;
    }

    core::RunResult run_activation_at(const core::OpDesc& op, const core::Tensor& in, core::Tensor& out,
                                      int in_offset, int out_offset) {
        core::RunResult r;
        try {
            const auto n = static_cast<std::size_t>(in.size());
            const int64_t t0 = now_ns();
            Buffer<float> d_in("in", n + static_cast<std::size_t>(in_offset) + 1);
            Buffer<float> d_out("out", n + static_cast<std::size_t>(out_offset) + 1);
            if (!copy_unless_stopped(d_in.data() + in_offset, in.ptr(), in.bytes())) return stopped();
            const int64_t t1 = now_ns();
            const Result s = run_activation(op, d_in.ptr_at(static_cast<std::size_t>(in_offset)),
                                            d_out.ptr_at(static_cast<std::size_t>(out_offset)), in.size(), counted());
            const int64_t t2 = now_ns();
            if (!s.ok) {
                r.error = s.error;
                return r;
            }
            if (!copy_unless_stopped(out.ptr(), d_out.data() + out_offset, out.bytes())) return stopped();
            // The simulator's launch is synchronous: enqueuing it is running it.
            r.t = {t1 - t0, t2 - t1, now_ns() - t2, t2 - t1};
            r.moved_bytes = 32 * s.stats.global_sectors;
            r.unique_bytes = static_cast<int64_t>(in.bytes() + out.bytes());
            r.ok = true;
        } catch (const std::exception& e) {
            r.error = std::string(name()) + ": " + e.what();
        }
        return r;
    }

private:
    // The upload and download of a 2^26-float run move 256 MiB each: in pieces, so that a stopped
    // measurement (core/runtime/cancel.h) does not wait for them (issue 38). False when stopped.
    static bool copy_unless_stopped(float* dst, const float* src, std::size_t bytes) {
        constexpr std::size_t kPiece = std::size_t{1} << 22;
        auto* to = reinterpret_cast<unsigned char*>(dst);
        const auto* from = reinterpret_cast<const unsigned char*>(src);
        for (std::size_t at = 0; at < bytes; at += kPiece) {
            if (core::cancel_requested()) return false;
            std::memcpy(to + at, from + at, std::min(kPiece, bytes - at));
        }
        return !core::cancel_requested();
    }
    static core::RunResult stopped() {
        core::RunResult r;
        r.error = "cancelled";
        return r;
    }

    // Every run counts the global sectors its warps touch (RunResult::moved_bytes): the bytes a GPU
    // would move, from the kernel's own addresses, for the bandwidth-bound model line.
    static Options counted() {
        Options o;
        o.count_global_sectors = true;
        return o;
    }
    kern::Conv2dKernel which(const core::Conv2dDesc& d) const {
        return naive_ ? kern::Conv2dKernel::Naive : kern::conv2d_kernel_for(d);
    }
    bool naive_;
};

}  // namespace

std::unique_ptr<core::Backend> make_cuda_sim_backend() { return std::make_unique<CudaSimBackend>(false); }
std::unique_ptr<core::Backend> make_cuda_sim_naive_backend() { return std::make_unique<CudaSimBackend>(true); }

core::RunResult run_activation_at_offsets(const core::OpDesc& op, const core::Tensor& in, core::Tensor& out,
                                          int in_offset, int out_offset) {
    if (in_offset < 0 || out_offset < 0 || in_offset > 64 || out_offset > 64) {
        return {false, "offsets must be 0..64 floats", {}};
    }
    if (out.size() != in.size()) {
        return {false, "output has " + std::to_string(out.size()) + " elements, input " + std::to_string(in.size()),
                {}};
    }
    CudaSimBackend b(false);
    return b.run_activation_at(op, in, out, in_offset, out_offset);
}

}  // namespace gpulab::sim
