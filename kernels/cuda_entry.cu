// The CUDA build's implementation of gpu_backends.h: what device is there (probe), which GPU
// backends exist (make_backends, make_conv2d_extra_backends), and the one-line version caption.
//
// probe() asks, in order: driver and runtime versions (these work without a device),
// cudaGetDeviceCount, the device's properties, cudaFree(nullptr) (which creates the context: the
// process pays for it here, once), cudaMemGetInfo, cudaFuncGetAttributes of one of our kernels
// (does this build's fatbin have code the device can run?), then cuDNN's version and whether
// cudnnCreate works. The result is published through an atomic (core/runtime/publish_once.h), so
// probe_now() and probe_ready() answer a GUI frame at once while the warm-up thread is still inside
// probe(), instead of blocking it on a static-initialisation guard for the whole cold start.
//
// Cold start: every GPU entry point asks probe() first, so its first run is where the process first
// touches CUDA. It reads the host clock before the first runtime call (with the static runtime that
// call also loads libcuda), after cudaGetDeviceCount (driver initialised, devices enumerated) and
// after cudaFree(nullptr) (primary context created), and keeps both durations in the probe, where
// gpu::cold_start() (latency_probe.cu) reads them. Later calls cannot measure this again: the
// context lives until the process ends.
//
// Every failure becomes a reason string in the driver's own words, e.g. on a machine whose driver
// is older than the runtime:
//   "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version"
// No kernels here, so no thread mapping.
//
// Verified by tests/test_gpu_backends.cpp and, for the cold start, tests/test_gpu_latency.cpp: the
// "backends" suites (names, reasons, no throw) run on every machine; the gpu suites print the probe
// reason when they skip.
#include <cuda_runtime.h>

#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "measure/clock.h"
#include "conv2d/conv2d.cuh"
#include "cuda/cuda_check.cuh"
#include "gpu_backends.h"
#include "gpu_internal.h"
#include "runtime/publish_once.h"

namespace gpulab::gpu {

namespace {

// 13000 -> "13.0", 12080 -> "12.8": the encoding of cudaDriverGetVersion / cudaRuntimeGetVersion.
std::string cuda_version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

void probe_device(GpuProbe& g) {
    const int64_t first_call_ns = core::now_ns();
    // Both version calls succeed without a device; a driver version of 0 means no driver at all.
    if (cudaDriverGetVersion(&g.driver_version) != cudaSuccess) g.driver_version = 0;
    if (cudaRuntimeGetVersion(&g.runtime_version) != cudaSuccess) g.runtime_version = 0;
    cudaGetLastError();

    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    g.driver_init_ns = core::now_ns() - first_call_ns;
    if (e != cudaSuccess) {
        g.reason = cuda::describe(e);
        cudaGetLastError();
        return;
    }
    if (count == 0) {
        g.reason = "no CUDA device: cudaGetDeviceCount found 0 devices";
        return;
    }
    try {
        int device = 0;
        GPULAB_CUDA_CHECK(cudaGetDevice(&device));
        cudaDeviceProp prop{};
        GPULAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        g.name = prop.name;
        g.cc_major = prop.major;
        g.cc_minor = prop.minor;
        g.sm_count = prop.multiProcessorCount;
        g.warp_size = prop.warpSize;
        // Freeing nothing is the runtime's idiom for "create the context now", so its cost lands
        // here, on the clock, and not inside whichever later call happens to need the context.
        GPULAB_CUDA_CHECK(cudaFree(nullptr));
        g.context_ns = core::now_ns() - first_call_ns;
        GPULAB_CUDA_CHECK(cudaMemGetInfo(&g.free_memory, &g.total_memory));
        // A context is no proof that our kernels can run: current drivers still create one on GPUs
        // older than Turing (Pascal, Volta), for which CUDA 13 compiled no code, and every launch
        // would then fail with cudaErrorNoKernelImageForDevice. Asking the module for one kernel's
        // attributes fails the same way (it also covers a future architecture the fatbin lacks).
        cudaFuncAttributes attr{};
        const cudaError_t image = cuda::conv2d_kernel_image_check(attr);
        if (image != cudaSuccess) {
            cudaGetLastError();
            g.reason = "device " + std::to_string(device) + ": " + g.name + " (compute capability " +
                       std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor) +
                       ") cannot run this build's kernels: " + cuda::describe(image) +
                       " (CUDA 13 builds code for compute capability 7.5 and newer; see GPULAB_CUDA_ARCHS)";
            return;
        }
        g.device_ok = true;
        g.reason = "device " + std::to_string(device) + " of " + std::to_string(count) + ": " + g.name +
                   " (compute capability " + std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor) + ")";
    } catch (const std::exception& ex) {
        // E.g. no context could be created on this device.
        g.device_ok = false;
        g.reason = ex.what();
    }
}

GpuProbe run_probe() {
    GpuProbe g;
    g.compiled_in = true;
    try {
        probe_device(g);
        detail::probe_cudnn(g);
    } catch (const std::exception& ex) {
        // std::string allocation is the only thing left that can throw here.
        if (g.reason.empty()) g.reason = ex.what();
        if (g.cudnn_reason.empty()) g.cudnn_reason = ex.what();
    }
    return g;
}

// Constant-initialised: no static-initialisation guard that a frame could block on.
core::PublishOnce<GpuProbe> g_probe;

}  // namespace

const GpuProbe& probe() { return g_probe.get(run_probe); }

bool probe_ready() { return g_probe.try_get() != nullptr; }

const GpuProbe& probe_now() {
    if (const GpuProbe* p = g_probe.try_get()) return *p;
    static const GpuProbe pending = [] {
        GpuProbe g;
        g.compiled_in = true;
        g.reason = kProbing;
        g.cudnn_reason = kProbing;
        return g;
    }();
    return pending;
}

int conv2d_tiled_blocks_per_sm(int kernel, int stride) {
    if (!probe_ready() || !probe().device_ok) return 0;
    static std::mutex mutex;
    static std::map<std::pair<int, int>, int> cache;
    std::lock_guard<std::mutex> lock(mutex);
    const auto key = std::make_pair(kernel, stride);
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
    int per_sm = 0;
    try {
        per_sm = cuda::conv2d_tiled_blocks_per_sm(kernel, stride);
    } catch (const std::exception&) {
        per_sm = 0;  // the caller estimates instead
    }
    cache[key] = per_sm;
    return per_sm;
}

core::BackendList make_backends() {
    core::BackendList list;
    list.push_back(detail::make_cuda_kernel_backend());
    list.push_back(detail::make_cudnn_backend());
    return list;
}

core::BackendList make_conv2d_extra_backends() {
    core::BackendList list;
    list.push_back(detail::make_cuda_naive_backend());
    return list;
}

std::string version_summary() {
    const GpuProbe& p = probe();
    std::string s = "CUDA " + cuda_version_string(p.runtime_version) + " runtime";
    if (p.driver_version > 0) {
        s += ", driver " + cuda_version_string(p.driver_version);
    } else {
        s += ", no CUDA driver";
    }
    if (p.cudnn_compiled_in && !p.cudnn_library_missing) {
        s += ", cuDNN " + p.cudnn_version;
    } else {
        s += ", no cuDNN";
    }
    if (!p.device_ok) s += " (no usable device: " + p.reason + ")";
    return s;
}

}  // namespace gpulab::gpu
