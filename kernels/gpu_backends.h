// The only door from the rest of gpulab into CUDA: plain C++ types, no CUDA headers.
//
// Two implementations of this header exist and CMake links exactly one of them:
//   cuda_entry.cu   when a CUDA compiler was found (the real backends), and
//   gpu_absent.cpp    otherwise (every GPU backend reports "CUDA not compiled in").
// So the CUDA build adds files; it does not fork functions with #ifdef.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "backends/backend.h"

namespace gpulab::gpu {

// What `gpulab info` and the Devices panel show. Every field that could not be read says why.
struct GpuProbe {
    bool compiled_in = false;     // false in the CPU-only build
    bool device_ok = false;       // a CUDA device is usable
    std::string reason;           // verbatim, e.g. "cudaErrorInsufficientDriver: CUDA driver version is ..."
    std::string name;             // "NVIDIA H100 80GB HBM3"
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int warp_size = 32;
    std::size_t total_memory = 0;
    std::size_t free_memory = 0;
    int driver_version = 0;       // cudaDriverGetVersion, e.g. 13000
    int runtime_version = 0;      // cudaRuntimeGetVersion
    bool cudnn_compiled_in = false;
    bool cudnn_ok = false;
    std::string cudnn_reason;
    bool cudnn_library_missing = false;  // libcudnn.so.9 absent or of another major version
    std::string cudnn_version;    // from cudnnGetVersion() at run time, e.g. "9.13.0"
    // The cold start, host clock, recorded by the first probe() because that is where the process
    // first touches CUDA: from before its first runtime call until the context exists.
    int64_t driver_init_ns = 0;   // up to cudaGetDeviceCount: load libcuda, initialise the driver
    int64_t context_ns = 0;       // the whole cold start, context creation (cudaFree(nullptr)) included
};

// Cheap after the first call (cached). Never throws. The first call creates the CUDA context and
// cuDNN's handle (0.5-3 s on a GPU machine) and every caller waits for it, so a frame must not be
// that caller: the GUI uses probe_now().
const GpuProbe& probe();
// Never blocks: true once probe() has finished (in any thread).
bool probe_ready();
// Never blocks: probe() when it has finished, else a placeholder (compiled_in as built, device_ok
// and cudnn_ok false) whose reasons are kProbing. For everything drawn in a frame.
const GpuProbe& probe_now();
inline constexpr const char* kProbing = "probing the GPU ...";

// For a frame: b.availability(), except that a GPU backend answers {false, kProbing} until probe()
// has finished, so drawing never waits for driver start-up and context creation.
inline core::Availability availability_now(const core::Backend& b) {
    if (b.kind() == core::BackendKind::Gpu && !probe_ready()) return {false, kProbing};
    return b.availability();
}

// Blocks of the tiled convolution kernel (16 x 16 threads, its dynamic shared memory for a
// kernel x kernel filter at `stride`) one SM of this device holds at once, from
// cudaOccupancyMaxActiveBlocksPerMultiprocessor. 0 without a usable device or before probe() has
// finished (then estimate with core/gpu_model/gpu_model.h). Cached per (kernel, stride); never throws.
int conv2d_tiled_blocks_per_sm(int kernel, int stride);

// cuda-kernel then cudnn. Always returned, even when unusable: availability() says why, so the
// Devices panel can list every backend with its reason.
core::BackendList make_backends();

// GPU backends that only the convolution lesson lists, after make_backends(): "cuda-naive", the
// one-thread-per-output kernel that cuda-kernel's tiled kernel is compared with. Kept apart so the
// other lessons' columns stay cuda-kernel and cudnn. Always returned, even when unusable.
core::BackendList make_conv2d_extra_backends();

// Tries to load libcudnn.so.9 from exactly `dir` (not cached, unloaded again): ok with its version
// ("9.19.0"), or the sentence the cudnn backend would show. For tests of the run-time loader; in a
// build without cuDNN support it says that instead.
core::Availability check_cudnn_library(const std::string& dir);

// Tries to load libcublas.so.13 (the dense layers' library) from exactly `dir`, like
// check_cudnn_library above: ok with its version ("13.1.0"), or the sentence the
// engine would show; without CUDA or cuBLAS, why not (train/cudnn_train_absent.cpp).
core::Availability check_cublas_library(const std::string& dir);

// "CUDA 13.0 runtime, driver 13.0, cuDNN 9.13.0" or the reason there is none; for captions.
std::string version_summary();

}  // namespace gpulab::gpu
