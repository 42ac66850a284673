// Warp divergence, measured: one kernel whose threads branch on a key read from memory, timed for
// every pattern of core/ops/simt.h and traced for the first warps, so the lesson can put the
// hardware's own active masks next to the CPU emulator's (core/workloads/simd_mimd.cpp).
//
// Thread mapping: one thread per element, 256 threads per block, so warp w of the grid holds
// elements 32w .. 32w+31 and lane = element % 32, exactly the numbering pattern_key assumes.
//
//   element i ──> key = keys[i] ──> switch (key % 32) ──> path_body<key>(x, iterations) ──> out[i]
//
//   one warp, 4-way pattern (key = lane % 4): each instruction the warp issues serves one path's lanes
//     lanes   0 1 2 3 4 5 6 7 ... 31
//     key     0 1 2 3 0 1 2 3 ...  3
//     path 0  X . . . X . . . ...  .    active 0x11111111  (the other lanes are masked off)
//     path 1  . X . . . X . . ...  .    active 0x22222222
//     path 2  . . X . . . X . ...  .    active 0x44444444
//     path 3  . . . X . . . X ...  X    active 0x88888888  -> 4 paths cost ~4x one path when issue-bound
//   Drawn one after another; since Volta (independent thread scheduling) the scheduler may interleave
//   the paths' instructions, so the masks and the summed cost are what holds, not the order.
//
// Why the branches stay branches (the compiler must not turn them into a select or merge them):
//  - the key comes from global memory, so no path is known at compile time;
//  - every path body is a LOOP of `iterations` (a kernel argument) rounds; a loop cannot be
//    predicated or if-converted into a select, and 32 loops cannot be merged into one because
//  - each path's round is a different chain of four dependent FFMAs: the chain is picked by the
//    path's base-3 digits from x*a+b, x*x+b and -x*x+b, so the data flow (not only constants)
//    differs between any two paths; each round is 4 FFMAs in every path, so the paths cost the
//    same and N paths in a warp should cost ~N times one (TARGETS.md: within +-20 %).
//  - nvcc's default contraction cannot change the count: every operation already is an FFMA.
// Inspection done on the dev box (no cuobjdump or nvdisasm there, so PTX rather than SASS):
// `nvcc -arch=sm_90 -ptx` shows the switch as a branch tree (`setp` + `@p bra`) into 32 separate
// loop bodies of 4 `fma.rn.f32` per round, and no `selp` between paths; in the traced kernel each
// `activemask.b32` and `%clock64` read sits inside its path's block. SASS (BSSY/BSYNC around the
// switch, BRA/BRX) still needs checking with `cuobjdump -sass` on a machine that has it.
//
// Tracing is a separate instantiation (kTrace = true) launched once after the timed runs, so the
// timed kernel carries no recording code at all. In the traced kernel, on entering a path, the
// warp reads __activemask() (the lanes running this path together) and clock64(); on leaving,
// clock64() again; the lowest active lane appends {path, mask, start, end} to its warp's slot.
// The asm for the mask and the clock carries the path number as an operand, so the compiler
// cannot hoist the identical-looking reads out of the 32 cases into one read before the switch.
//
// Correctness: the path bodies are __host__ __device__ and use only fmaf, which is correctly
// rounded on both sides, so the host recomputes the first elements and the device output must
// match bit for bit (the work really ran, on the path the key chose).
//
// Verified by tests/test_gpu_divergence.cpp (gpu suite: traced masks equal the emulator's per
// pattern, as sets; measured factor 32-way > 4-way > uniform; backends suite: no throw without a
// device).
#include "divergence.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_check.cuh"
#include "cuda/device_buffer.cuh"
#include "gpu_backends.h"
#include "ops/simt.h"
#include "cuda/staged_backend.cuh"
#include "measure/stats.h"

namespace gpulab::cuda {

namespace {

constexpr int kBlock = 256;
constexpr int kPaths = simt::kWarpSize;  // the switch has one case per lane of a warp
constexpr int kWarmup = 2;
constexpr int64_t kMaxElements = int64_t{1} << 28;
constexpr int kMaxIterations = 1 << 16;
constexpr int kMaxSamples = 1000;
constexpr int kMaxTraceWarps = 1024;
constexpr int kHostChecked = 4096;  // elements recomputed on the host after the timed runs

// [SECTION] the path bodies (equal cost, different data flow)

constexpr int digit3(int p, int j) { return j == 0 ? p % 3 : digit3(p / 3, j - 1); }

template <int kOp>
GPULAB_HD float chain_op(float x, float a, float b) {
    // x stays within [-1, 1] for every op: |0.5x + b| <= 0.75, x*x - 0.5 and 0.5 - x*x in [-0.5, 0.5].
    if constexpr (kOp == 0) return fmaf(x, a, b);
    else if constexpr (kOp == 1) return fmaf(x, x, -0.5f);
    else return fmaf(-x, x, 0.5f);
}

template <int P>
GPULAB_HD float path_body(float x, int iterations) {
    // Different constants per path as well, so two paths never compute the same numbers.
    constexpr float a = 0.5f - 0.003f * P;
    constexpr float b = 0.25f - 0.007f * P;
    for (int it = 0; it < iterations; ++it) {
        x = chain_op<digit3(P, 0)>(x, a, b);
        x = chain_op<digit3(P, 1)>(x, a, b);
        x = chain_op<digit3(P, 2)>(x, a, b);
        x = chain_op<digit3(P, 3)>(x, a, b);
    }
    return x;
}

// An explicit fmaf: nvcc would contract a*b+c into one FMA on the device and the host would not,
// and the bit-exact check below needs both sides to round the same way.
GPULAB_HD float start_value(int64_t i) { return fmaf(static_cast<float>(i % 1000), 0.001f, -0.5f); }

// The host's copy of the dispatch, for the correctness check.
template <int P = 0>
float host_path(int key, float x, int iterations) {
    if constexpr (P == kPaths) {
        return x;
    } else {
        return key == P ? path_body<P>(x, iterations) : host_path<P + 1>(key, x, iterations);
    }
}

// [SECTION] trace records

struct TraceRecord {
    int path;
    unsigned mask;
    long long start;
    long long end;
};

template <int P>
__device__ __forceinline__ unsigned active_mask_in_path() {
    unsigned m;
    asm volatile("activemask.b32 %0; // path %1" : "=r"(m) : "n"(P) : "memory");
    return m;
}

template <int P>
__device__ __forceinline__ long long clock_in_path() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64; // path %1" : "=l"(t) : "n"(P) : "memory");
    return t;
}

template <int P, bool kTrace>
__device__ __forceinline__ float run_path(float x, int iterations, bool tracing, int warp, TraceRecord* records,
                                          int* counts) {
    if constexpr (!kTrace) {
        return path_body<P>(x, iterations);
    } else {
        if (!tracing) return path_body<P>(x, iterations);
        const unsigned mask = active_mask_in_path<P>();
        const long long t0 = clock_in_path<P>();
        asm volatile("" : "+f"(x));  // the body starts after the first stamp ...
        x = path_body<P>(x, iterations);
        asm volatile("" : "+f"(x));  // ... and has finished before the second
        const long long t1 = clock_in_path<P>();
        const int lane = static_cast<int>(threadIdx.x) % simt::kWarpSize;
        if (lane == __ffs(mask) - 1) {
            const int slot = atomicAdd(&counts[warp], 1);
            if (slot < kPaths) records[warp * kPaths + slot] = TraceRecord{P, mask, t0, t1};
        }
        return x;
    }
}

// [SECTION] the kernel

#define GPULAB_DIVERGENCE_CASE(p) \
    case p: x = run_path<p, kTrace>(x, iterations, tracing, warp, records, counts); break;

template <bool kTrace>
__global__ void divergence_kernel(const int* __restrict__ keys, float* __restrict__ out, int64_t n, int iterations,
                                  int trace_warps, TraceRecord* records, int* counts) {
    const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int warp = static_cast<int>(i / simt::kWarpSize);
    const bool tracing = kTrace && warp < trace_warps;
    float x = start_value(i);
    switch (keys[i] % kPaths) {
        GPULAB_DIVERGENCE_CASE(0) GPULAB_DIVERGENCE_CASE(1) GPULAB_DIVERGENCE_CASE(2) GPULAB_DIVERGENCE_CASE(3)
        GPULAB_DIVERGENCE_CASE(4) GPULAB_DIVERGENCE_CASE(5) GPULAB_DIVERGENCE_CASE(6) GPULAB_DIVERGENCE_CASE(7)
        GPULAB_DIVERGENCE_CASE(8) GPULAB_DIVERGENCE_CASE(9) GPULAB_DIVERGENCE_CASE(10) GPULAB_DIVERGENCE_CASE(11)
        GPULAB_DIVERGENCE_CASE(12) GPULAB_DIVERGENCE_CASE(13) GPULAB_DIVERGENCE_CASE(14) GPULAB_DIVERGENCE_CASE(15)
        GPULAB_DIVERGENCE_CASE(16) GPULAB_DIVERGENCE_CASE(17) GPULAB_DIVERGENCE_CASE(18) GPULAB_DIVERGENCE_CASE(19)
        GPULAB_DIVERGENCE_CASE(20) GPULAB_DIVERGENCE_CASE(21) GPULAB_DIVERGENCE_CASE(22) GPULAB_DIVERGENCE_CASE(23)
        GPULAB_DIVERGENCE_CASE(24) GPULAB_DIVERGENCE_CASE(25) GPULAB_DIVERGENCE_CASE(26) GPULAB_DIVERGENCE_CASE(27)
        GPULAB_DIVERGENCE_CASE(28) GPULAB_DIVERGENCE_CASE(29) GPULAB_DIVERGENCE_CASE(30) GPULAB_DIVERGENCE_CASE(31)
        default: break;
    }
    out[i] = x;
}

#undef GPULAB_DIVERGENCE_CASE

// Why no GPU work can be done now, or empty.
std::string unusable_reason() {
    const gpu::GpuProbe& p = gpu::probe();
    if (!p.device_ok) return p.reason;
    return context_lost_reason();
}

void measure(gpu::DivergenceRun& r, int samples, int trace_warps, cudaStream_t s) {
    const int64_t n = r.elements;
    std::vector<int> h_keys(static_cast<std::size_t>(n));
    for (int64_t i = 0; i < n; ++i) h_keys[static_cast<std::size_t>(i)] = simt::pattern_key(r.pattern, i);

    DeviceBuffer<int> d_keys(static_cast<std::size_t>(n));
    DeviceBuffer<float> d_out(static_cast<std::size_t>(n));
    const int traced = static_cast<int>(std::min<int64_t>(trace_warps, (n + simt::kWarpSize - 1) / simt::kWarpSize));
    DeviceBuffer<TraceRecord> d_records(static_cast<std::size_t>(std::max(traced, 1)) * kPaths);
    DeviceBuffer<int> d_counts(static_cast<std::size_t>(std::max(traced, 1)));
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_keys.data(), h_keys.data(), static_cast<std::size_t>(n) * sizeof(int),
                                      cudaMemcpyHostToDevice, s));

    const auto blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
    const auto launch_timed = [&] {
        divergence_kernel<false><<<blocks, kBlock, 0, s>>>(d_keys.data(), d_out.data(), n, r.iterations, 0, nullptr,
                                                           nullptr);
        GPULAB_CUDA_CHECK_LAUNCH();
    };
    for (int w = 0; w < kWarmup; ++w) launch_timed();
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));

    const Event start, stop;
    std::vector<int64_t> times;
    times.reserve(static_cast<std::size_t>(samples));
    for (int k = 0; k < samples; ++k) {
        start.record(s);
        launch_timed();
        stop.record(s);
        stop.synchronize();
        times.push_back(elapsed_ns(start, stop));
    }
    r.kernel = core::summarize(std::move(times));

    // The output of the timed runs, checked against the host's own evaluation of the same paths.
    const int64_t checked = std::min<int64_t>(n, kHostChecked);
    std::vector<float> h_out(static_cast<std::size_t>(checked));
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_out.data(), d_out.data(), static_cast<std::size_t>(checked) * sizeof(float),
                                      cudaMemcpyDeviceToHost, s));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
    for (int64_t i = 0; i < checked; ++i) {
        const float want = host_path(h_keys[static_cast<std::size_t>(i)] % kPaths, start_value(i), r.iterations);
        if (h_out[static_cast<std::size_t>(i)] != want) {
            throw CudaError("divergence kernel: element " + std::to_string(i) + " is " +
                            std::to_string(h_out[static_cast<std::size_t>(i)]) + ", the host computes " +
                            std::to_string(want) + " for path " + std::to_string(h_keys[static_cast<std::size_t>(i)]));
        }
    }
    if (traced == 0) return;

    // [SECTION] one traced launch, outside the timing
    GPULAB_CUDA_CHECK(cudaMemsetAsync(d_counts.data(), 0, static_cast<std::size_t>(traced) * sizeof(int), s));
    divergence_kernel<true><<<blocks, kBlock, 0, s>>>(d_keys.data(), d_out.data(), n, r.iterations, traced,
                                                      d_records.data(), d_counts.data());
    GPULAB_CUDA_CHECK_LAUNCH();
    std::vector<TraceRecord> h_records(static_cast<std::size_t>(traced) * kPaths);
    std::vector<int> h_counts(static_cast<std::size_t>(traced));
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_records.data(), d_records.data(), h_records.size() * sizeof(TraceRecord),
                                      cudaMemcpyDeviceToHost, s));
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_counts.data(), d_counts.data(), h_counts.size() * sizeof(int),
                                      cudaMemcpyDeviceToHost, s));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
    for (int w = 0; w < traced; ++w) {
        gpu::RecordedWarp warp;
        warp.warp = w;
        const int count = std::min(h_counts[static_cast<std::size_t>(w)], kPaths);
        for (int k = 0; k < count; ++k) {
            const TraceRecord& t = h_records[static_cast<std::size_t>(w) * kPaths + static_cast<std::size_t>(k)];
            warp.paths.push_back({t.path, t.mask, t.start, t.end});
        }
        // clock64 is per SM and one warp never leaves its SM, so its stamps compare with each
        // other; the earliest entry becomes 0 and the paths are listed in the order they started.
        // Since Volta one warp's path windows may overlap (interleaved paths): the start order is
        // what happened in this run, not a rule, and the views draw overlaps as recorded.
        std::sort(warp.paths.begin(), warp.paths.end(), [](const gpu::RecordedPath& a, const gpu::RecordedPath& b) {
            return a.start_clock < b.start_clock;
        });
        const int64_t first = warp.paths.empty() ? 0 : warp.paths.front().start_clock;
        for (gpu::RecordedPath& p : warp.paths) {
            p.start_clock -= first;
            p.end_clock -= first;
        }
        r.warps.push_back(std::move(warp));
    }
}

}  // namespace

}  // namespace gpulab::cuda

namespace gpulab::gpu {

DivergenceRun run_divergence(simt::Pattern pattern, int64_t elements, int iterations, int samples, int trace_warps) {
    DivergenceRun r;
    r.pattern = pattern;
    r.elements = elements;
    r.iterations = iterations;
    std::unique_ptr<cuda::Stream> stream;
    try {
        std::string why = cuda::unusable_reason();
        if (!why.empty()) {
            r.error = std::move(why);
            return r;
        }
        if (elements < 1 || elements > cuda::kMaxElements) {
            r.error = "divergence: elements must be 1.." + std::to_string(cuda::kMaxElements) + ", got " +
                      std::to_string(elements);
            return r;
        }
        if (iterations < 1 || iterations > cuda::kMaxIterations) {
            r.error = "divergence: iterations must be 1.." + std::to_string(cuda::kMaxIterations) + ", got " +
                      std::to_string(iterations);
            return r;
        }
        if (samples < 1 || samples > cuda::kMaxSamples) {
            r.error = "divergence: samples must be 1.." + std::to_string(cuda::kMaxSamples) + ", got " +
                      std::to_string(samples);
            return r;
        }
        if (trace_warps < 0 || trace_warps > cuda::kMaxTraceWarps) {
            r.error = "divergence: trace warps must be 0.." + std::to_string(cuda::kMaxTraceWarps) + ", got " +
                      std::to_string(trace_warps);
            return r;
        }
        stream = std::make_unique<cuda::Stream>();
        cuda::measure(r, samples, trace_warps, stream->get());
        r.ok = r.kernel.median_ns > 0;
        if (!r.ok) r.error = "divergence: the events measured no time";
    } catch (const std::exception& e) {
        r.ok = false;
        r.error = e.what();
    } catch (...) {
        r.ok = false;
        r.error = "divergence: unknown error";
    }
    if (!r.ok && stream) cuda::note_if_context_lost(stream->get(), r.error);
    return r;
}

}  // namespace gpulab::gpu
