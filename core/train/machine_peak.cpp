// The FMA loop and the copy: see machine_peak.h.
//
// One source for every ISA: GCC's vector types (a vector of 16, 8 or 4 floats) and a per-function
// `target` attribute, so the loop compiles as AVX-512, AVX2+FMA or SSE2 code in this one file
// without per-file flags, and runs only where simd_math.h says the CPU has that ISA.
#include "machine_peak.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

#include "runtime/cancel.h"
#include "measure/clock.h"
#include "backends/cpu_limit.h"
#include "measure/format.h"
#include "backends/simd/simd_math.h"

namespace gpulab::train {

namespace {

// acc = acc * a + b on 16 independent chains: with a just under 1 and b small every chain settles
// near b / (1 - a), so no value overflows or turns denormal (which would slow the loop down).
// The sum at the end keeps the compiler from dropping the work. FLOP: iterations x 16 x lanes x 2.
#define GPULAB_FMA_LOOP(VEC, LANES)                                                         \
    typedef float VEC __attribute__((vector_size(LANES * 4)));                              \
    VEC a, b;                                                                               \
    for (int i = 0; i < LANES; ++i) {                                                       \
        a[i] = 0.999999f;                                                                   \
        b[i] = 1e-6f * static_cast<float>(i + 1);                                           \
    }                                                                                       \
    VEC c0 = b, c1 = b + b, c2 = c1 + b, c3 = c2 + b, c4 = c3 + b, c5 = c4 + b, c6 = c5 + b, \
        c7 = c6 + b, c8 = c7 + b, c9 = c8 + b, c10 = c9 + b, c11 = c10 + b, c12 = c11 + b,   \
        c13 = c12 + b, c14 = c13 + b, c15 = c14 + b;                                        \
    for (std::int64_t it = 0; it < iterations; ++it) {                                      \
        c0 = c0 * a + b;                                                                    \
        c1 = c1 * a + b;                                                                    \
        c2 = c2 * a + b;                                                                    \
        c3 = c3 * a + b;                                                                    \
        c4 = c4 * a + b;                                                                    \
        c5 = c5 * a + b;                                                                    \
        c6 = c6 * a + b;                                                                    \
        c7 = c7 * a + b;                                                                    \
        c8 = c8 * a + b;                                                                    \
        c9 = c9 * a + b;                                                                    \
        c10 = c10 * a + b;                                                                  \
        c11 = c11 * a + b;                                                                  \
        c12 = c12 * a + b;                                                                  \
        c13 = c13 * a + b;                                                                  \
        c14 = c14 * a + b;                                                                  \
        c15 = c15 * a + b;                                                                  \
    }                                                                                       \
    const VEC s = ((c0 + c1) + (c2 + c3)) + ((c4 + c5) + (c6 + c7)) + ((c8 + c9) + (c10 + c11)) + \
                  ((c12 + c13) + (c14 + c15));                                              \
    float sum = 0.0f;                                                                       \
    for (int i = 0; i < LANES; ++i) sum += s[i];                                            \
    return sum;

constexpr int kChains = 16;

// -ffp-contract=fast lets `c * a + b` become one fused multiply-add where the target has one.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=fast")

float fma_loop_baseline(std::int64_t iterations) { GPULAB_FMA_LOOP(V4, 4) }

#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,fma"))) float fma_loop_avx2(std::int64_t iterations) { GPULAB_FMA_LOOP(V8, 8) }
__attribute__((target("avx512f"))) float fma_loop_avx512(std::int64_t iterations) { GPULAB_FMA_LOOP(V16, 16) }
#else
float fma_loop_avx2(std::int64_t iterations) { return fma_loop_baseline(iterations); }
float fma_loop_avx512(std::int64_t iterations) { return fma_loop_baseline(iterations); }
#endif

#pragma GCC pop_options
#undef GPULAB_FMA_LOOP

float run_fma_loop(cpu::SimdIsa isa, std::int64_t iterations) {
    switch (isa) {
        case cpu::SimdIsa::Avx512: return fma_loop_avx512(iterations);
        case cpu::SimdIsa::Avx2Fma: return fma_loop_avx2(iterations);
        case cpu::SimdIsa::Baseline: break;
    }
    return fma_loop_baseline(iterations);
}

// Every thread runs `iterations` at once (lined up on a flag); the wall time from the release to
// the last thread's end. A thread that starts late makes the run look slower, never faster.
std::int64_t time_threads(cpu::SimdIsa isa, int threads, std::int64_t iterations) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<float> sink(static_cast<std::size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            ready.fetch_add(1);
            while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
            sink[static_cast<std::size_t>(t)] = run_fma_loop(isa, iterations);
        });
    while (ready.load() < threads) std::this_thread::yield();
    const std::int64_t t0 = core::now_ns();
    go.store(true, std::memory_order_release);
    for (std::thread& th : pool) th.join();
    return core::now_ns() - t0;
}

}  // namespace

double measure_fma_flops(int threads, std::int64_t ns) {
    const cpu::SimdIsa isa = cpu::best_simd_isa();
    threads = std::max(threads, 1);
    // Calibrate on one thread: iterations for about a third of `ns` per round.
    std::int64_t iterations = 1 << 14;
    std::int64_t took = 0;
    while ((took = std::max<std::int64_t>(time_threads(isa, 1, iterations), 1)) < 2'000'000 && iterations < (1LL << 40))
        iterations *= 4;
    iterations = std::max<std::int64_t>(1, iterations * std::max<std::int64_t>(ns / 3, 1) / took);
    const double flop = static_cast<double>(iterations) * kChains * cpu::simd_isa_lanes(isa) * 2.0 * threads;
    double best = 0.0;
    for (int round = 0; round < 3; ++round) {
        const std::int64_t t = std::max<std::int64_t>(time_threads(isa, threads, iterations), 1);
        best = std::max(best, flop * 1e9 / static_cast<double>(t));
    }
    return best;
}

MeasuredPeaks measure_peaks(std::int64_t fma_ns, std::size_t copy_bytes, int threads) {
    MeasuredPeaks p;
    const std::int64_t start = core::now_ns();
    try {
        p.threads = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        p.isa = std::string(cpu::simd_isa_name(cpu::best_simd_isa()));
        p.lanes = cpu::simd_isa_lanes(cpu::best_simd_isa());
        p.flops = measure_fma_flops(p.threads, fma_ns);
        const core::LimitResult copy = cpu::measure_parallel_copy_limit(copy_bytes);
        if (!copy.ok) {
            p.error = "the copy could not be measured: " + copy.error;
        } else {
            p.bytes_per_s = copy.gbps * 1e9;
            p.copy_name = copy.name;
            p.copy_bytes = copy_bytes;
            p.ok = p.flops > 0;
            if (!p.ok) p.error = "the FMA loop ran too fast to time";
        }
    } catch (const core::Cancelled&) {
        p.ok = false;
        p.error = "cancelled";
    } catch (const std::exception& e) {
        p.ok = false;
        p.error = std::string("measuring this machine failed: ") + e.what();
    }
    p.took_ns = core::now_ns() - start;
    return p;
}

Machine machine_of(const MeasuredPeaks& peaks) {
    Machine m;
    m.name = "this machine";
    m.flops = peaks.flops;
    m.bytes_per_s = peaks.bytes_per_s;
    m.source = Source::Measured;
    m.flops_how = "an FMA loop, " + std::to_string(kChains) + " independent chains of " + peaks.isa + " (" +
                  std::to_string(peaks.lanes) + " floats) on " + std::to_string(peaks.threads) +
                  (peaks.threads == 1 ? " thread" : " threads");
    m.bytes_how = peaks.copy_name + " of " + core::format_bytes(static_cast<double>(peaks.copy_bytes)) +
                  ", read + write bytes";
    return m;
}

}  // namespace gpulab::train
