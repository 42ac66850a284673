// The SIMD-vs-MIMD lesson's measurements (SIMD on one core, MIMD across cores) and its SIMT warp
// emulator. Verified by tests/test_simd_mimd.cpp (scalar and vector results agree, the timeline
// has spans from several threads with distinct tasks, bad arguments give ok=false) and
// tests/test_simt.cpp (hand-checked active masks and step counts for every pattern).
#include "simd_mimd.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <memory>
#include <new>
#include <thread>

#include <sched.h>

#include "runtime/cancel.h"
#include "measure/clock.h"
#include "ops/tensor_compare.h"
#include "backends/cpu_scalar.h"
#include "measure/format.h"
#include "runtime/memory.h"
#include "backends/simd/simd_math.h"

namespace gpulab::core {

// [SECTION] SIMD on one core

namespace {

// The same tolerance run_activation uses against cpu-scalar (activation_workload.cpp): ReLU is a
// compare, exact everywhere; the exp-based activations differ by a few ulp between libm and the
// polynomial exp of the vector path.
Tolerance simd_tolerance(Activation a) {
    switch (a) {
        case Activation::Relu:
        case Activation::LeakyRelu: return {1e-12, 0.0};
        default: return {2e-6, 1e-5};
    }
}

}  // namespace

SimdComparison measure_simd_vs_scalar(Activation activation, int64_t elements, const MeasureConfig& config) {
    SimdComparison r;
    r.elements = elements;
    r.isa = std::string(cpu::simd_isa());
    r.lanes = cpu::simd_isa_lanes(cpu::best_simd_isa());
    try {
        if (elements < 1) {
            r.error = "element count must be at least 1";
            return r;
        }
        // input + two outputs live at the same time
        const Availability fits = check_host_allocation(3 * static_cast<std::size_t>(elements) * sizeof(float));
        if (!fits.ok) {
            r.error = format_count(elements) + " elements refused: " + fits.reason;
            return r;
        }
        OpDesc op;
        op.activation = activation;
        const Tensor input = make_feature_map(elements, 1);
        Tensor scalar_out = Tensor::zeros(input.shape);
        Tensor simd_out = Tensor::zeros(input.shape);
        const int64_t n = input.size();

        const auto time_scalar = [&] {
            const int64_t t0 = now_ns();
            cpu::activation_reference(op, input.ptr(), scalar_out.ptr(), n);
            return now_ns() - t0;
        };
        const auto time_simd = [&] {
            const int64_t t0 = now_ns();
            cpu::activation_simd(op, input.ptr(), simd_out.ptr(), n);
            return now_ns() - t0;
        };
        for (int i = 0; i < config.warmup; ++i) {
            time_scalar();
            time_simd();
        }
        // Interleaved, one of each per round: a burst of noise from a neighbour on this shared
        // machine then lands on both sides instead of on whichever happened to be running.
        std::vector<int64_t> scalar_ns, simd_ns;
        const int max_samples = std::max(config.max_samples, 1);
        const int64_t t_start = now_ns();
        while (static_cast<int>(scalar_ns.size()) < max_samples) {
            if (static_cast<int>(scalar_ns.size()) >= config.min_samples && now_ns() - t_start > config.time_budget_ns)
                break;
            scalar_ns.push_back(time_scalar());
            simd_ns.push_back(time_simd());
        }
        r.scalar = summarize(std::move(scalar_ns));
        r.simd = summarize(std::move(simd_ns));
        r.speedup = r.simd.median_ns > 0
                        ? static_cast<double>(r.scalar.median_ns) / static_cast<double>(r.simd.median_ns)
                        : 0.0;
        r.results_equal = compare(scalar_out, simd_out, simd_tolerance(activation)).pass;
        r.ok = true;
    } catch (const Cancelled&) {
        r.error = "cancelled";
    } catch (const std::bad_alloc&) {
        r.error = "out of memory for " + format_count(elements) + " elements";
    } catch (const std::exception& e) {
        r.error = std::string("unexpected error: ") + e.what();
    }
    return r;
}

// [SECTION] MIMD: different instruction streams at once
//
// Four kinds of work, chosen because their instruction streams have nothing in common: a
// vectorised float loop (wide FMAs, no branches), trial division (integer divides, unpredictable
// branches), a linked-list walk (one dependent load after another, the core mostly waiting on
// memory) and string hashing (byte loads, multiplies, formatting). A multi-core CPU runs them side
// by side because each core fetches and decodes its own instructions; a GPU warp could not.
// Sizes are set so one slice takes a few milliseconds on a 2020s core at work_scale 1.

namespace {

constexpr int kSlices = 8;

class MimdTask {
public:
    virtual ~MimdTask() = default;
    virtual std::string name() const = 0;
    // One slice of the work; the returned checksum keeps the compiler from dropping it.
    virtual uint64_t slice(int index) = 0;
};

class SigmoidTask final : public MimdTask {
public:
    SigmoidTask(int64_t scale, int seed) : passes_(256 * scale), in_(kFloats), out_(kFloats) {
        for (int64_t i = 0; i < kFloats; ++i)
            in_[i] = static_cast<float>(std::sin(0.001 * static_cast<double>(i + seed))) * 4.0f;
        op_.activation = Activation::Sigmoid;
    }
    std::string name() const override { return "sigmoid, 64 Ki floats (SIMD)"; }
    uint64_t slice(int) override {
        float sum = 0.0f;
        // 256 KiB in and out: stays in L2, so this stream is bound by the vector units, not memory.
        for (int64_t p = 0; p < passes_; ++p) {
            cpu::activation_simd(op_, in_.data(), out_.data(), kFloats);
            sum += out_[static_cast<std::size_t>(p) % kFloats];
        }
        return static_cast<uint64_t>(sum * 1000.0f);
    }

private:
    static constexpr int64_t kFloats = 64 * 1024;
    int64_t passes_;
    FloatBuffer in_, out_;
    OpDesc op_;
};

class PrimeTask final : public MimdTask {
public:
    PrimeTask(int64_t scale, int seed) : width_(60000 * scale), base_(1'000'000 + 100'000 * seed) {}
    std::string name() const override { return "count primes (trial division)"; }
    uint64_t slice(int index) override {
        const int64_t lo = base_ + index * width_, hi = lo + width_;
        uint64_t count = 0;
        for (int64_t n = lo; n < hi; ++n) {
            // Every candidate leaves the loop at a different divisor: a branch the predictor
            // cannot learn, which is harmless on a CPU core and poison for a warp.
            bool prime = n >= 2 && (n % 2 != 0 || n == 2);
            for (int64_t d = 3; prime && d * d <= n; d += 2) {
                if (n % d == 0) prime = false;
            }
            count += prime ? 1 : 0;
        }
        return count;
    }

private:
    int64_t width_, base_;
};

class ListWalkTask final : public MimdTask {
public:
    ListWalkTask(int64_t scale, int seed) : steps_(40'000 * scale), next_(kNodes) {
        // Sattolo's shuffle: a random permutation that is one single cycle, so the walk visits
        // every node before repeating and the hardware prefetcher cannot guess the next address.
        for (uint32_t i = 0; i < kNodes; ++i) next_[i] = i;
        uint32_t state = 12345u + static_cast<uint32_t>(seed);
        for (uint32_t i = kNodes - 1; i > 0; --i) {
            state = state * 1664525u + 1013904223u;
            const uint32_t j = static_cast<uint32_t>((static_cast<uint64_t>(state) * i) >> 32);  // j < i
            std::swap(next_[i], next_[j]);
        }
    }
    std::string name() const override { return "walk a 1 Mi-node linked list"; }
    uint64_t slice(int) override {
        uint32_t at = at_;
        for (int64_t s = 0; s < steps_; ++s) at = next_[at];
        at_ = at;
        return at;
    }

private:
    static constexpr uint32_t kNodes = 1u << 20;  // 4 MiB: past L2, so every step waits on a load
    int64_t steps_;
    std::vector<uint32_t> next_;
    uint32_t at_ = 0;
};

class HashTask final : public MimdTask {
public:
    HashTask(int64_t scale, int seed) : keys_(80'000 * scale), seed_(static_cast<uint64_t>(seed)) {}
    std::string name() const override { return "hash strings (FNV-1a)"; }
    uint64_t slice(int index) override {
        uint64_t buckets[64] = {};
        std::string key;
        for (int64_t k = 0; k < keys_; ++k) {
            key = "user-";
            key += std::to_string(static_cast<uint64_t>(index) * 1'000'003u + static_cast<uint64_t>(k) + seed_);
            key += "@gpulab";
            uint64_t h = 1469598103934665603ull;
            for (char c : key) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
            ++buckets[h % 64];
        }
        uint64_t mix = 0;
        for (uint64_t b : buckets) mix = mix * 31 + b;
        return mix;
    }

private:
    int64_t keys_;
    uint64_t seed_;
};

std::unique_ptr<MimdTask> make_task(int kind, int64_t scale, int seed) {
    switch (kind % 4) {
        case 0: return std::make_unique<SigmoidTask>(scale, seed);
        case 1: return std::make_unique<PrimeTask>(scale, seed);
        case 2: return std::make_unique<ListWalkTask>(scale, seed);
        default: return std::make_unique<HashTask>(scale, seed);
    }
}

int current_cpu() {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

// Written once per slice so no checksum, and therefore no slice, can be optimised away.
std::atomic<uint64_t> g_sink{0};

}  // namespace

MimdTimeline run_mimd_demo(int threads, int64_t work_scale) {
    MimdTimeline r;
    r.threads = threads;
    if (threads < 1 || threads > kMaxMimdThreads) {
        r.error = "threads must be 1.." + std::to_string(kMaxMimdThreads) + ", got " + std::to_string(threads);
        return r;
    }
    if (work_scale < 1 || work_scale > kMaxMimdWorkScale) {
        r.error = "work scale must be 1.." + std::to_string(kMaxMimdWorkScale) + ", got " + std::to_string(work_scale);
        return r;
    }
    std::vector<std::thread> workers;
    std::atomic<int> ready{0};
    std::atomic<bool> go{false}, abort{false};
    try {
        // All data is built here, before any clock runs: the timeline shows work, not setup.
        std::vector<std::unique_ptr<MimdTask>> tasks;
        for (int t = 0; t < threads; ++t) tasks.push_back(make_task(t, work_scale, t));
        std::vector<std::vector<TimelineSpan>> per_thread(static_cast<std::size_t>(threads));
        for (auto& v : per_thread) v.reserve(kSlices);

        // [SECTION] all threads at once. std::thread rather than the pool: each worker is one
        // long-lived instruction stream of its own, which is the point of the picture.
        int64_t t0 = 0;
        const auto worker = [&](int t) {
            MimdTask& task = *tasks[static_cast<std::size_t>(t)];
            const std::string name = task.name();
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            if (abort.load()) return;
            for (int s = 0; s < kSlices; ++s) {
                TimelineSpan span;
                span.thread = t;
                span.task = name;
                span.cpu = current_cpu();
                span.start_ns = now_ns() - t0;
                g_sink.fetch_add(task.slice(s), std::memory_order_relaxed);
                span.end_ns = now_ns() - t0;
                per_thread[static_cast<std::size_t>(t)].push_back(std::move(span));
            }
        };
        try {
            for (int t = 0; t < threads; ++t) workers.emplace_back(worker, t);
        } catch (const std::exception& e) {
            abort = true;
            go.store(true, std::memory_order_release);
            for (auto& w : workers) w.join();
            r.error = std::string("could not start thread ") + std::to_string(workers.size()) + ": " + e.what();
            return r;
        }
        while (ready.load() < threads) std::this_thread::yield();
        t0 = now_ns();
        r.t0_ns = t0;
        go.store(true, std::memory_order_release);
        for (auto& w : workers) w.join();
        workers.clear();
        r.wall_ns = now_ns() - t0;
        for (auto& v : per_thread) {
            for (auto& span : v) r.spans.push_back(std::move(span));
        }
        std::sort(r.spans.begin(), r.spans.end(), [](const TimelineSpan& a, const TimelineSpan& b) {
            return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.thread < b.thread;
        });

        // [SECTION] the same slices one after another on this thread: one instruction stream.
        const int64_t s0 = now_ns();
        for (auto& task : tasks) {
            for (int s = 0; s < kSlices; ++s) g_sink.fetch_add(task->slice(s), std::memory_order_relaxed);
        }
        r.sequential_ns = now_ns() - s0;
        r.ok = r.wall_ns > 0 && r.sequential_ns > 0;
        if (!r.ok) r.error = "the clock measured no time";
    } catch (const std::bad_alloc&) {
        r.error = "out of memory preparing the MIMD tasks";
    } catch (const std::exception& e) {
        r.error = std::string("unexpected error: ") + e.what();
    }
    if (!workers.empty()) {
        abort = true;
        go.store(true, std::memory_order_release);
        for (auto& w : workers) {
            if (w.joinable()) w.join();
        }
    }
    return r;
}

// [SECTION] SIMT warp emulator

WarpTrace emulate_warp(simt::Pattern pattern, int warp_index) {
    WarpTrace trace;
    trace.warp = warp_index;
    // What the warp scheduler sees: one key per lane, then one pass per distinct key with only
    // the lanes holding that key enabled. The hardware's order of paths is its own business; we
    // step them in ascending order, and the GPU test compares masks as a set.
    int keys[simt::kWarpSize];
    for (int lane = 0; lane < simt::kWarpSize; ++lane) {
        keys[lane] = simt::pattern_key(pattern, static_cast<int64_t>(warp_index) * simt::kWarpSize + lane);
    }
    int sorted[simt::kWarpSize];
    std::copy(std::begin(keys), std::end(keys), std::begin(sorted));
    std::sort(std::begin(sorted), std::end(sorted));
    const int* end = std::unique(std::begin(sorted), std::end(sorted));
    for (const int* k = std::begin(sorted); k != end; ++k) {
        WarpStep step;
        step.path = *k;
        for (int lane = 0; lane < simt::kWarpSize; ++lane) {
            if (keys[lane] == *k) step.active |= 1u << lane;
        }
        trace.steps.push_back(step);
    }
    return trace;
}

int64_t divergence_elements(int sm_count, int threads_per_sm, int64_t floor_elements) {
    const int64_t fill = int64_t{kDivergenceWaves} * std::max(sm_count, 0) * std::max(threads_per_sm, 0);
    int64_t n = 1;
    while (n < std::max<int64_t>(fill, floor_elements)) n *= 2;
    return n;
}

int divergence_iterations(int iterations, int64_t uniform_ns) {
    if (iterations < 1 || uniform_ns <= 0 || uniform_ns >= kDivergenceTargetNs) return iterations;
    int64_t it = iterations;
    // Time grows in proportion to the work per path once the grid is full.
    while (it < kMaxDivergenceIterations && uniform_ns * (it / iterations) < kDivergenceTargetNs) it *= 2;
    return static_cast<int>(std::min<int64_t>(it, kMaxDivergenceIterations));
}

double theoretical_factor(simt::Pattern pattern, int warps) {
    if (warps < 1) return 0.0;
    int64_t total = 0;
    for (int w = 0; w < warps; ++w) total += static_cast<int64_t>(emulate_warp(pattern, w).steps.size());
    return static_cast<double>(total) / static_cast<double>(warps);
}

std::string_view pattern_name(simt::Pattern p) {
    switch (p) {
        case simt::Pattern::Uniform: return "uniform";
        case simt::Pattern::LaneParity: return "lane-parity";
        case simt::Pattern::FourWay: return "4-way";
        case simt::Pattern::EightWay: return "8-way";
        case simt::Pattern::ThirtyTwoWay: return "32-way";
        case simt::Pattern::Random: return "random";
        case simt::Pattern::PerWarp: return "per-warp";
    }
    return "unknown";
}

std::string_view pattern_label(simt::Pattern p) {
    switch (p) {
        case simt::Pattern::Uniform: return "Uniform (no divergence)";
        case simt::Pattern::LaneParity: return "Split by lane parity (2 paths)";
        case simt::Pattern::FourWay: return "lane % 4 (4 paths)";
        case simt::Pattern::EightWay: return "lane % 8 (8 paths)";
        case simt::Pattern::ThirtyTwoWay: return "Every lane its own path (32)";
        case simt::Pattern::Random: return "Random, 1 of 8 paths per element";
        case simt::Pattern::PerWarp: return "Per warp: divergence between warps only";
    }
    return "Unknown pattern";
}

std::optional<simt::Pattern> parse_pattern(std::string_view name) {
    for (simt::Pattern p : kAllPatterns) {
        if (pattern_name(p) == name) return p;
    }
    return std::nullopt;
}

}  // namespace gpulab::core
