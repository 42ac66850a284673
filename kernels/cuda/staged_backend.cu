// The shared run() of the GPU backends: pinned staging, H2D upload, compute, D2H download, each
// phase timed with CUDA events; the device-to-device copy limit; the memory checks made before
// any allocation. Host code only: the kernels themselves are in activation.cu (cuda-kernel) and
// inside cuDNN (cudnn). The phase picture is in staged_backend.cuh. Beside the event-timed phases,
// launch_ns is the host clock around compute(), i.e. what enqueuing the work cost the CPU.
//
// run_conv2d is the same sequence with the filter bank uploaded beside the input.
//
// Verified by tests/test_gpu_backends.cpp, gpu suite (and the backends suite for the no-device path),
// and for run_conv2d by tests/test_gpu_conv2d.cpp.
#include "staged_backend.cuh"

#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "measure/clock.h"
#include "cuda_check.cuh"
#include "measure/format.h"
#include "gpu_backends.h"
#include "runtime/memory.h"
#include "measure/stats.h"

namespace gpulab::cuda {

namespace {

// Leave a tenth of the free memory for the CUDA context's own growth and library workspaces, so
// a request that "just fits" does not fail later inside cuDNN or the driver.
constexpr double kUsableFraction = 0.9;
constexpr int kLimitSamples = 5;

// Process-wide, like the CUDA context the error poisoned: both GPU backends share it.
std::mutex g_lost_mutex;
std::string g_lost_reason;

}  // namespace

bool note_if_context_lost(cudaStream_t stream, const std::string& what) noexcept {
    // A non-sticky error (a refused allocation, a bad launch configuration) is gone after
    // cudaGetLastError, and the stream then synchronizes cleanly. A sticky one is returned again.
    cudaGetLastError();
    const cudaError_t e = cudaStreamSynchronize(stream);
    cudaGetLastError();
    if (e == cudaSuccess) return false;
    try {
        std::lock_guard<std::mutex> lock(g_lost_mutex);
        if (g_lost_reason.empty()) {
            g_lost_reason = "CUDA context lost (" + describe(e) + ", first seen as: " + what +
                            "); every later CUDA call in this process fails: restart gpulab to use the GPU again";
        }
    } catch (...) {
        // Out of memory while building the text: the caller's own error still says what failed.
    }
    return true;
}

std::string context_lost_reason() {
    std::lock_guard<std::mutex> lock(g_lost_mutex);
    return g_lost_reason;
}

core::Availability StagedGpuBackend::availability() const {
    const gpu::GpuProbe& p = gpu::probe();
    if (!p.device_ok) return {false, p.reason};
    std::string lost = context_lost_reason();
    if (!lost.empty()) return {false, std::move(lost)};
    return {true, p.name};
}

core::Availability StagedGpuBackend::device_room(std::size_t need_bytes) {
    try {
        std::size_t free_bytes = 0, total_bytes = 0;
        GPULAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (static_cast<double>(need_bytes) <= kUsableFraction * static_cast<double>(free_bytes)) return {true, ""};
        return {false, "needs " + core::format_bytes(static_cast<double>(need_bytes)) + " of GPU memory but only " +
                           core::format_bytes(static_cast<double>(free_bytes)) + " of " +
                           core::format_bytes(static_cast<double>(total_bytes)) + " is free"};
    } catch (const std::exception& e) {
        return {false, e.what()};
    }
}

core::Availability StagedGpuBackend::can_allocate(std::size_t bytes) const {
    core::Availability av = availability();
    if (!av.ok) return av;
    // Buffers we already hold are freed before larger ones are allocated, so they count as room.
    const std::size_t held = d_in_.capacity_bytes() + d_out_.capacity_bytes() + d_filters_.capacity_bytes();
    const std::size_t need = bytes > held ? bytes - held : 0;
    core::Availability dev = device_room(need);
    if (!dev.ok) return dev;
    // The pinned staging buffers mirror the device buffers in host memory.
    const std::size_t pinned_held = h_in_.capacity_bytes() + h_out_.capacity_bytes() + h_filters_.capacity_bytes();
    return core::check_host_allocation(bytes > pinned_held ? bytes - pinned_held : 0);
}

void StagedGpuBackend::ensure_ready() {
    if (ready_) return;
    if (!stream_) stream_ = std::make_unique<Stream>();
    if (!timer_) timer_ = std::make_unique<PhaseTimer>();
    prepare(stream_->get());
    ready_ = true;
}

core::RunResult StagedGpuBackend::run(const core::OpDesc& op, const core::Tensor& in, core::Tensor& out) {
    core::RunResult r;
    try {
        const core::Availability av = availability();
        if (!av.ok) {
            r.error = av.reason;
            return r;
        }
        if (!supports(op)) {
            r.error = std::string(name()) + " does not offer " + op.label();
            return r;
        }
        if (out.size() != in.size()) {
            r.error = "output has " + std::to_string(out.size()) + " elements, input " + std::to_string(in.size());
            return r;
        }
        output_generation_.fetch_add(1, std::memory_order_acq_rel);
        has_output_ = false;
        ensure_ready();
        const int64_t n = in.size();
        if (n == 0) {
            r.ok = true;
            return r;
        }
        const auto count = static_cast<std::size_t>(n);
        const std::size_t bytes = count * sizeof(float);
        if (count > d_in_.capacity() || count > d_out_.capacity() || count > h_in_.capacity() ||
            count > h_out_.capacity()) {
            const core::Availability room = can_allocate(2 * bytes);
            if (!room.ok) {
                r.error = room.reason;
                return r;
            }
        }
        h_in_.reserve(count);
        h_out_.reserve(count);
        d_in_.reserve(count);
        d_out_.reserve(count);

        // Not timed: this is a host memcpy from the caller's pageable tensor into pinned memory.
        // It would be the same for any GPU backend, and timing it as "upload" would charge the bus
        // for work the CPU does. The DMA that follows is what the upload phase measures.
        std::memcpy(h_in_.data(), in.ptr(), bytes);

        const cudaStream_t s = stream_->get();
        timer_->mark(0, s);
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_in_.data(), h_in_.data(), bytes, cudaMemcpyHostToDevice, s));
        timer_->mark(1, s);
        // Host clock around the enqueue only: compute() returns as soon as the launch (or, for
        // cudnn, the descriptor updates and cudnnActivationForward) has been queued, long before the
        // GPU finishes. This is the fixed cost every launch pays on the CPU whatever the size.
        const int64_t launch_start = core::now_ns();
        compute(op, d_in_.data(), d_out_.data(), n, s);
        r.t.launch_ns = core::now_ns() - launch_start;
        timer_->mark(2, s);
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_out_.data(), d_out_.data(), bytes, cudaMemcpyDeviceToHost, s));
        timer_->mark(3, s);
        timer_->wait_last();

        r.t.upload_ns = timer_->phase_ns(0);
        r.t.compute_ns = timer_->phase_ns(1);
        r.t.download_ns = timer_->phase_ns(2);
        std::memcpy(out.ptr(), h_out_.data(), bytes);
        has_output_ = true;
        r.ok = true;
    } catch (const std::exception& e) {
        r.error = e.what();
    } catch (...) {
        r.error = std::string(name()) + ": unknown error";
    }
    if (!r.ok && stream_) {
        // Work enqueued before the failure may still read our buffers: let it finish before the
        // next run can reallocate them, and find out whether the failure poisoned the context.
        if (note_if_context_lost(stream_->get(), r.error)) {
            r.error += " (the CUDA context is now unusable: restart gpulab to use the GPU again)";
        }
    }
    return r;
}

core::RunResult StagedGpuBackend::run_conv2d(const core::Conv2dDesc& d, const core::Tensor& input,
                                             const core::Tensor& filters, core::Tensor& output) {
    core::RunResult r;
    try {
        const core::Availability av = availability();
        if (!av.ok) {
            r.error = av.reason;
            return r;
        }
        const std::string problem = conv2d_problem(d);
        if (!problem.empty()) {
            r.error = std::string(name()) + ": " + problem;
            return r;
        }
        // Element counts, not shapes: a single-channel image may come as (H, W) or (1, 1, H, W).
        const auto check_count = [&r](const char* what, const core::Tensor& t, int64_t want) {
            if (t.size() == want) return true;
            r.error = std::string(what) + " has " + std::to_string(t.size()) + " elements, the shape needs " +
                      std::to_string(want);
            return false;
        };
        if (!check_count("conv2d input", input, d.input_elements()) ||
            !check_count("conv2d filters", filters, d.filter_elements()) ||
            !check_count("conv2d output", output, d.output_elements())) {
            return r;
        }
        output_generation_.fetch_add(1, std::memory_order_acq_rel);
        has_output_ = false;
        ensure_ready();
        const auto n_in = static_cast<std::size_t>(d.input_elements());
        const auto n_filt = static_cast<std::size_t>(d.filter_elements());
        const auto n_out = static_cast<std::size_t>(d.output_elements());
        if (n_in > d_in_.capacity() || n_filt > d_filters_.capacity() || n_out > d_out_.capacity() ||
            n_in > h_in_.capacity() || n_filt > h_filters_.capacity() || n_out > h_out_.capacity()) {
            // Before any allocation: refuse with a sentence rather than fail inside cudaMalloc.
            const core::Availability room = can_allocate((n_in + n_filt + n_out) * sizeof(float));
            if (!room.ok) {
                r.error = room.reason;
                return r;
            }
        }
        h_in_.reserve(n_in);
        h_filters_.reserve(n_filt);
        h_out_.reserve(n_out);
        d_in_.reserve(n_in);
        d_filters_.reserve(n_filt);
        d_out_.reserve(n_out);

        const cudaStream_t s = stream_->get();
        prepare_conv2d(d, s);

        // Host copies into pinned staging, not timed (see run()).
        std::memcpy(h_in_.data(), input.ptr(), n_in * sizeof(float));
        std::memcpy(h_filters_.data(), filters.ptr(), n_filt * sizeof(float));

        timer_->mark(0, s);
        GPULAB_CUDA_CHECK(
            cudaMemcpyAsync(d_in_.data(), h_in_.data(), n_in * sizeof(float), cudaMemcpyHostToDevice, s));
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_filters_.data(), h_filters_.data(), n_filt * sizeof(float),
                                          cudaMemcpyHostToDevice, s));
        timer_->mark(1, s);
        const int64_t launch_start = core::now_ns();
        compute_conv2d(d, d_in_.data(), d_filters_.data(), d_out_.data(), s);
        r.t.launch_ns = core::now_ns() - launch_start;
        timer_->mark(2, s);
        GPULAB_CUDA_CHECK(
            cudaMemcpyAsync(h_out_.data(), d_out_.data(), n_out * sizeof(float), cudaMemcpyDeviceToHost, s));
        timer_->mark(3, s);
        timer_->wait_last();

        r.t.upload_ns = timer_->phase_ns(0);
        r.t.compute_ns = timer_->phase_ns(1);
        r.t.download_ns = timer_->phase_ns(2);
        std::memcpy(output.ptr(), h_out_.data(), n_out * sizeof(float));
        has_output_ = true;
        r.ok = true;
    } catch (const std::exception& e) {
        r.error = e.what();
    } catch (...) {
        r.error = std::string(name()) + ": unknown error";
    }
    if (!r.ok && stream_) {
        if (note_if_context_lost(stream_->get(), r.error)) {
            r.error += " (the CUDA context is now unusable: restart gpulab to use the GPU again)";
        }
    }
    return r;
}

core::LimitResult StagedGpuBackend::bandwidth_limit(std::size_t bytes) {
    core::LimitResult l;
    l.name = "D2D copy";
    try {
        const core::Availability av = availability();
        if (!av.ok) {
            l.error = av.reason;
            return l;
        }
        if (bytes == 0) {
            l.error = "D2D copy of 0 bytes: nothing to measure";
            return l;
        }
        // Our run buffers stay allocated, so the two copy buffers need fresh room.
        const core::Availability room = device_room(2 * bytes);
        if (!room.ok) {
            l.error = room.reason;
            return l;
        }
        ensure_ready();
        const cudaStream_t s = stream_->get();
        DeviceBuffer<unsigned char> src(bytes), dst(bytes);
        GPULAB_CUDA_CHECK(cudaMemsetAsync(src.data(), 1, bytes, s));
        // Warm-up: the first copy pays for mapping fresh pages; it is not the bandwidth.
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s));
        Event start, stop;
        std::vector<int64_t> samples;
        for (int i = 0; i < kLimitSamples; ++i) {
            start.record(s);
            GPULAB_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s));
            stop.record(s);
            stop.synchronize();
            samples.push_back(elapsed_ns(start, stop));
        }
        // Read + write: a copy moves every byte twice through DRAM, as the activations do.
        l.gbps = core::gbps(2.0 * static_cast<double>(bytes), core::summarize(samples).median_ns);
        l.ok = l.gbps > 0.0;
        if (!l.ok) l.error = "D2D copy: events measured no time";
    } catch (const std::exception& e) {
        l.error = e.what();
    } catch (...) {
        l.error = "D2D copy: unknown error";
    }
    if (!l.ok && stream_) note_if_context_lost(stream_->get(), l.error);
    return l;
}

}  // namespace gpulab::cuda
