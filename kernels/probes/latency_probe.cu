// The GPU's fixed costs for the latency-vs-throughput lesson (latency_probe.h): what a kernel
// launch costs the host, what launch + wait costs, how much of that a CUDA Graph takes away, how
// fast host <-> device copies are from pinned and from pageable memory, and (read from probe())
// what creating the CUDA context cost. These are the costs a tiny array cannot hide, which is why
// the CPU wins below the crossover size.
//
// Thread mapping: none worth drawing. Both kernels run as one block of one thread, on purpose:
//   empty_kernel   does nothing, so all that is timed is the launch machinery;
//   tiny_kernel    adds 1 to a device counter, the smallest kernel with a visible effect, so after
//                  the measurement the counter must equal the number of kernels we launched (the
//                  graph really replayed all K kernels every time, nothing was skipped).
// Kernels on one stream run in order, so the plain `+= 1` never races.
//
// Clocks: launch overheads are host time (core::now_ns) because the cost is on the host: the
// launch call returns long before the GPU runs anything. Copies are GPU time between two CUDA
// events on the copy's stream, as in the staged backends.
//
//   enqueue           t0 | empty_kernel<<<1,1>>> | t1                       (no wait)
//   launch_and_sync   t0 | empty_kernel<<<1,1>>> ; cudaStreamSynchronize | t1
//   separate          t0 | K x tiny_kernel<<<1,1>>> ; sync | t1          -> (t1 - t0) / K
//   graph             t0 | cudaGraphLaunch(the same K, captured once) ; sync | t1   -> (t1 - t0) / K
//
// Warm-up first: with CUDA's lazy module loading the first launch of a kernel also loads its
// module, and the first graph launch uploads the graph; neither is a launch cost.
//
// Every CUDA call is checked (cuda_check.cuh); each public function catches at its boundary and
// returns ok=false with the message, never throws.
//
// Verified by tests/test_gpu_latency.cpp (gpu suite: positive medians, graph per kernel not slower
// than separate launches, copy bandwidth positive and pinned not slower than pageable, cold start
// positive; backends suite: ok=false with a reason and no throw without a device).
#include "latency_probe.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "measure/clock.h"
#include "cuda/cuda_check.cuh"
#include "cuda/device_buffer.cuh"
#include "measure/format.h"
#include "gpu_backends.h"
#include "runtime/memory.h"
#include "cuda/staged_backend.cuh"
#include "measure/stats.h"

namespace gpulab::cuda {

namespace {

// Enough to load both kernels' module and settle the driver's launch path before the clock runs.
constexpr int kWarmup = 3;
// Launches timed one by one per sample for `enqueue`; the stream is drained between samples so the
// launch queue never fills (a full queue makes the launch call block, which is not its cost).
constexpr int kEnqueuePerSample = 16;
constexpr int kMaxGraphKernels = 4096;
constexpr int kMaxSamples = 10000;
// Same margin as the staged backends: leave room for the context's own growth.
constexpr double kUsableFraction = 0.9;

__global__ void empty_kernel() {}

__global__ void tiny_kernel(unsigned long long* counter) { *counter += 1; }

class Graph {
public:
    Graph() = default;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;
    ~Graph() {
        if (g_ != nullptr) cudaGraphDestroy(g_);
        cudaGetLastError();
    }
    void reset(cudaGraph_t g) {
        if (g_ != nullptr) cudaGraphDestroy(g_);
        g_ = g;
    }
    cudaGraph_t get() const { return g_; }

private:
    cudaGraph_t g_ = nullptr;
};

class GraphExec {
public:
    explicit GraphExec(cudaGraph_t graph) { GPULAB_CUDA_CHECK(cudaGraphInstantiate(&e_, graph, 0)); }
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;
    ~GraphExec() {
        if (e_ != nullptr) cudaGraphExecDestroy(e_);
        cudaGetLastError();
    }
    cudaGraphExec_t get() const { return e_; }

private:
    cudaGraphExec_t e_ = nullptr;
};

void launch_tiny(int count, unsigned long long* counter, cudaStream_t s) {
    for (int k = 0; k < count; ++k) tiny_kernel<<<1, 1, 0, s>>>(counter);
}

// Rounded to the nearest nanosecond rather than truncated.
int64_t per_kernel(int64_t batch_ns, int kernels) { return (batch_ns + kernels / 2) / kernels; }

// Why no GPU work can be done now, or empty.
std::string unusable_reason() {
    const gpu::GpuProbe& p = gpu::probe();
    if (!p.device_ok) return p.reason;
    return context_lost_reason();
}

void measure_launches(gpu::LaunchCosts& r, int kernels, int samples, cudaStream_t s) {
    DeviceBuffer<unsigned long long> counter(1);
    GPULAB_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(unsigned long long), s));
    unsigned long long expected = 0;

    for (int i = 0; i < kWarmup; ++i) {
        empty_kernel<<<1, 1, 0, s>>>();
        GPULAB_CUDA_CHECK_LAUNCH();
        launch_tiny(kernels, counter.data(), s);
        GPULAB_CUDA_CHECK_LAUNCH();
        expected += static_cast<unsigned long long>(kernels);
        GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
    }

    // Only the launch call is inside the clock; push_back happens after the second reading.
    std::vector<int64_t> enqueue;
    enqueue.reserve(static_cast<std::size_t>(samples) * kEnqueuePerSample);
    for (int i = 0; i < samples; ++i) {
        for (int j = 0; j < kEnqueuePerSample; ++j) {
            const int64_t t0 = core::now_ns();
            empty_kernel<<<1, 1, 0, s>>>();
            const int64_t t1 = core::now_ns();
            enqueue.push_back(t1 - t0);
        }
        GPULAB_CUDA_CHECK_LAUNCH();
        GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
    }

    std::vector<int64_t> launch_sync;
    launch_sync.reserve(static_cast<std::size_t>(samples));
    for (int i = 0; i < samples; ++i) {
        const int64_t t0 = core::now_ns();
        empty_kernel<<<1, 1, 0, s>>>();
        GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
        const int64_t t1 = core::now_ns();
        launch_sync.push_back(t1 - t0);
        GPULAB_CUDA_CHECK_LAUNCH();
    }

    std::vector<int64_t> separate;
    separate.reserve(static_cast<std::size_t>(samples));
    for (int i = 0; i < samples; ++i) {
        const int64_t t0 = core::now_ns();
        launch_tiny(kernels, counter.data(), s);
        GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
        const int64_t t1 = core::now_ns();
        separate.push_back(per_kernel(t1 - t0, kernels));
        GPULAB_CUDA_CHECK_LAUNCH();
        expected += static_cast<unsigned long long>(kernels);
    }

    // Capture records the launches into a graph instead of running them. ThreadLocal mode: only
    // this thread is barred from unsafe calls while capturing, other threads of the app are not.
    // Nothing may throw between Begin and End, or the stream would stay in capture mode; errors
    // are collected and thrown once the capture is closed.
    Graph graph;
    GPULAB_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    launch_tiny(kernels, counter.data(), s);
    cudaGraph_t captured = nullptr;
    const cudaError_t end_err = cudaStreamEndCapture(s, &captured);
    const cudaError_t launch_err = cudaGetLastError();
    graph.reset(captured);
    if (end_err != cudaSuccess) throw_cuda_error(end_err, "cudaStreamEndCapture(stream, &graph)", __FILE__, __LINE__);
    if (launch_err != cudaSuccess) throw_cuda_error(launch_err, "tiny_kernel capture", __FILE__, __LINE__);
    if (graph.get() == nullptr) throw CudaError("cudaStreamEndCapture returned no graph");

    // Instantiated once: that one-time cost is what a graph trades for cheap replays.
    const GraphExec exec(graph.get());
    for (int i = 0; i < kWarmup; ++i) {
        GPULAB_CUDA_CHECK(cudaGraphLaunch(exec.get(), s));
        expected += static_cast<unsigned long long>(kernels);
    }
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));

    std::vector<int64_t> graphed;
    graphed.reserve(static_cast<std::size_t>(samples));
    for (int i = 0; i < samples; ++i) {
        const int64_t t0 = core::now_ns();
        GPULAB_CUDA_CHECK(cudaGraphLaunch(exec.get(), s));
        GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
        const int64_t t1 = core::now_ns();
        graphed.push_back(per_kernel(t1 - t0, kernels));
        expected += static_cast<unsigned long long>(kernels);
    }

    unsigned long long seen = 0;
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(&seen, counter.data(), sizeof(seen), cudaMemcpyDeviceToHost, s));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
    if (seen != expected) {
        throw CudaError("launch costs: the tiny kernels ran " + std::to_string(seen) + " times, expected " +
                        std::to_string(expected) + "; the timings would not be of the work asked for");
    }

    r.enqueue = core::summarize(std::move(enqueue));
    r.launch_and_sync = core::summarize(std::move(launch_sync));
    r.separate_per_kernel = core::summarize(std::move(separate));
    r.graph_per_kernel = core::summarize(std::move(graphed));
}

// Warm-up copy, then `samples` copies each between two events; GB/s of the median.
double copy_gbps(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, int samples, cudaStream_t s,
                 const Event& start, const Event& stop) {
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<int64_t> times;
    times.reserve(static_cast<std::size_t>(samples));
    for (int i = 0; i < samples; ++i) {
        start.record(s);
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s));
        stop.record(s);
        stop.synchronize();
        times.push_back(elapsed_ns(start, stop));
    }
    return core::gbps(static_cast<double>(bytes), core::summarize(std::move(times)).median_ns);
}

void measure_copies(gpu::CopyBandwidth& r, std::size_t bytes, int samples, cudaStream_t s) {
    DeviceBuffer<unsigned char> d_buf(bytes);
    PinnedBuffer<unsigned char> h_pinned;
    h_pinned.reserve(bytes);
    std::memset(h_pinned.data(), 1, bytes);
    // Value-initialised, so every page is already faulted in: the copies then time the bus and
    // the driver's staging, not the kernel handing out fresh pages.
    std::vector<unsigned char> h_pageable(bytes, 1);
    const Event start, stop;

    const auto h2d = [&](const void* src) {
        return copy_gbps(d_buf.data(), src, bytes, cudaMemcpyHostToDevice, samples, s, start, stop);
    };
    const auto d2h = [&](void* dst) {
        return copy_gbps(dst, d_buf.data(), bytes, cudaMemcpyDeviceToHost, samples, s, start, stop);
    };
    r.h2d_pinned_gbps = h2d(h_pinned.data());
    r.h2d_pageable_gbps = h2d(h_pageable.data());
    r.d2h_pinned_gbps = d2h(h_pinned.data());
    r.d2h_pageable_gbps = d2h(h_pageable.data());
}

}  // namespace

}  // namespace gpulab::cuda

namespace gpulab::gpu {

LaunchCosts measure_launch_costs(int graph_kernels, int samples) {
    LaunchCosts r;
    std::unique_ptr<cuda::Stream> stream;
    try {
        std::string why = cuda::unusable_reason();
        if (!why.empty()) {
            r.error = std::move(why);
            return r;
        }
        if (graph_kernels < 1 || graph_kernels > cuda::kMaxGraphKernels) {
            r.error = "launch costs: kernels per batch must be 1.." + std::to_string(cuda::kMaxGraphKernels) +
                      ", got " + std::to_string(graph_kernels);
            return r;
        }
        if (samples < 1 || samples > cuda::kMaxSamples) {
            r.error = "launch costs: samples must be 1.." + std::to_string(cuda::kMaxSamples) + ", got " +
                      std::to_string(samples);
            return r;
        }
        r.graph_kernels = graph_kernels;
        // Our own stream, so nothing else queued on it adds to the waits we time.
        stream = std::make_unique<cuda::Stream>();
        cuda::measure_launches(r, graph_kernels, samples, stream->get());
        r.ok = true;
    } catch (const std::exception& e) {
        r.error = e.what();
    } catch (...) {
        r.error = "launch costs: unknown error";
    }
    if (!r.ok && stream) cuda::note_if_context_lost(stream->get(), r.error);
    return r;
}

CopyBandwidth measure_copy_bandwidth(std::size_t bytes, int samples) {
    CopyBandwidth r;
    r.bytes = bytes;
    std::unique_ptr<cuda::Stream> stream;
    try {
        std::string why = cuda::unusable_reason();
        if (!why.empty()) {
            r.error = std::move(why);
            return r;
        }
        if (bytes == 0) {
            r.error = "copy bandwidth: a copy of 0 bytes has nothing to measure";
            return r;
        }
        if (samples < 1 || samples > cuda::kMaxSamples) {
            r.error = "copy bandwidth: samples must be 1.." + std::to_string(cuda::kMaxSamples) + ", got " +
                      std::to_string(samples);
            return r;
        }
        std::size_t free_bytes = 0, total_bytes = 0;
        GPULAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        if (static_cast<double>(bytes) > cuda::kUsableFraction * static_cast<double>(free_bytes)) {
            r.error = "copy bandwidth: needs " + core::format_bytes(static_cast<double>(bytes)) +
                      " of GPU memory but only " + core::format_bytes(static_cast<double>(free_bytes)) + " of " +
                      core::format_bytes(static_cast<double>(total_bytes)) + " is free";
            return r;
        }
        // One pinned and one pageable host buffer of `bytes` each.
        const core::Availability host =
            bytes > SIZE_MAX / 2 ? core::Availability{false, "the request overflows the address space"}
                                 : core::check_host_allocation(2 * bytes);
        if (!host.ok) {
            r.error = "copy bandwidth: " + host.reason;
            return r;
        }
        stream = std::make_unique<cuda::Stream>();
        cuda::measure_copies(r, bytes, samples, stream->get());
        r.ok = r.h2d_pinned_gbps > 0.0 && r.d2h_pinned_gbps > 0.0 && r.h2d_pageable_gbps > 0.0 &&
               r.d2h_pageable_gbps > 0.0;
        if (!r.ok) r.error = "copy bandwidth: the events measured no time";
    } catch (const std::exception& e) {
        r.ok = false;
        r.error = e.what();
    } catch (...) {
        r.ok = false;
        r.error = "copy bandwidth: unknown error";
    }
    if (!r.ok && stream) cuda::note_if_context_lost(stream->get(), r.error);
    return r;
}

ColdStart cold_start() {
    ColdStart c;
    try {
        const GpuProbe& p = probe();
        if (!p.device_ok) {
            c.error = p.reason;
            return c;
        }
        c.context_ns = p.context_ns;
        c.driver_init_ns = p.driver_init_ns;
        c.ok = c.context_ns > 0;
        if (!c.ok) c.error = "cold start: the host clock saw no time around context creation";
    } catch (...) {
        c.ok = false;
        c.error = "cold start: unknown error";
    }
    return c;
}

}  // namespace gpulab::gpu
