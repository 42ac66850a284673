// The one interface every implementation of an op sits behind: cpu-scalar (the reference),
// cpu-parallel, and, when built, cuda-kernel and cudnn. Same inputs, same outputs, compared in
// tests and live in the app.
//
// Contract: availability() is cheap and cached; run() never throws: failures come back as
// ok=false with a message a student can read, and the app keeps running.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ops/conv2d.h"
#include "ops/op_desc.h"
#include "ops/tensor.h"
#include "runtime/availability.h"

namespace gpulab::core {

// Integer nanoseconds throughout; formatted only in core/measure/format.h.
// CPU backends report all their time as compute. GPU backends time each phase with CUDA events.
struct PhaseTimes {
    int64_t upload_ns = 0;    // host -> device copy of the input
    int64_t compute_ns = 0;   // the kernel(s) themselves
    int64_t download_ns = 0;  // device -> host copy of the output
    // Host-side cost of enqueuing the kernel launch(es), measured with the CPU clock. It overlaps
    // the GPU timeline (the GPU is idle or busy with the upload meanwhile), so it is reported
    // beside the phases, not added to the total. 0 for CPU backends.
    int64_t launch_ns = 0;
    int64_t total_ns() const { return upload_ns + compute_ns + download_ns; }
};

struct RunResult {
    bool ok = false;
    std::string error;
    PhaseTimes t;
    // Global-memory bytes the kernel moved, counted in 32-byte sectors from the addresses a
    // simulator recorded (cuda-sim); 0 when not counted. The basis of a bandwidth-bound model time.
    int64_t moved_bytes = 0;
    // The bytes of the data itself (inputs, weights and outputs, each once): what any implementation
    // must move at least. Sector traffic above it (halo re-reads across blocks) an L2 cache serves, so
    // only this is a floor. 0 when not counted.
    int64_t unique_bytes = 0;
};

// The bandwidth a backend can reach at all on this machine, measured in the same run as the op:
// memcpy for CPU backends, a device-to-device copy for GPU backends. Read + write bytes counted.
struct LimitResult {
    bool ok = false;
    std::string name;   // "memcpy (2 threads)", "D2D copy"
    double gbps = 0.0;  // GB/s, 1e9 bytes per second
    std::string error;
};

// Simulated: a GPU kernel run by a simulator on the CPU (cuda-sim). Its results are checked like any
// backend's; its time is the simulator's, so it never enters a speed plot, speed-up, crossover or
// GB/s figure, and the workloads time it once (kind_is_timed).
enum class BackendKind { Cpu, Gpu, Simulated };

// True for the kinds whose time is a speed of this machine (CPU, GPU), false for a simulation.
inline bool kind_is_timed(BackendKind k) { return k != BackendKind::Simulated; }

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string_view name() const = 0;         // "cpu-scalar", "cpu-parallel", "cuda-kernel", "cudnn"
    virtual std::string_view description() const = 0;  // one line for tooltips: what it is and how it runs
    virtual BackendKind kind() const = 0;
    virtual Availability availability() const = 0;
    virtual bool supports(const OpDesc& op) const = 0;
    // Checked before any allocation: can this backend hold `bytes` of input plus output?
    virtual Availability can_allocate(std::size_t bytes) const = 0;
    // `out` must already have the input's shape. Never throws.
    virtual RunResult run(const OpDesc& op, const Tensor& in, Tensor& out) = 0;
    // Measures the backend's copy bandwidth over `bytes` (source and destination each that size).
    virtual LimitResult bandwidth_limit(std::size_t bytes) = 0;
    // For display through CUDA-GL interop: device pointer to the last run's output, else nullptr.
    virtual const void* device_output() const { return nullptr; }
    // Counts the runs that may write or reallocate device_output()'s buffer, bumped before such a
    // run touches it; 0 for a backend without device output. Safe to read from any thread. See
    // core/backends/device_output_tag.h for why the views need it.
    virtual uint64_t output_generation() const { return 0; }

    // [SECTION] convolution (lesson conv-sliding-window). Backends that do not implement it keep
    // these defaults and show as "does not offer conv2d".
    virtual bool supports_conv2d(const Conv2dDesc&) const { return false; }
    // input N,C,H,W; filters K,C,R,S; output N,K,P,Q (already shaped). Never throws.
    virtual RunResult run_conv2d(const Conv2dDesc&, const Tensor& /*input*/, const Tensor& /*filters*/,
                                 Tensor& /*output*/) {
        return {false, std::string(name()) + " does not offer conv2d", {}};
    }
    // What actually ran, for peers: oneDNN's implementation string, cuDNN's chosen algorithm and
    // math type, "tiled 16x16 + halo" for our kernel. Empty before the first run.
    virtual std::string conv2d_implementation(const Conv2dDesc&) const { return ""; }
};

using BackendList = std::vector<std::unique_ptr<Backend>>;

// The CPU implementations, reference first.
BackendList make_cpu_backends();

}  // namespace gpulab::core
