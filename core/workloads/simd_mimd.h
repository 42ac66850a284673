// The SIMD-vs-MIMD lesson's measurements and models:
//  - SIMD within one core: the same activation loop scalar (cpu::activation_reference) vs
//    vectorised (cpu::activation_simd), one thread, with the instruction set that ran;
//  - MIMD: several threads doing DIFFERENT work at the same time, each recording real
//    timestamps, for a per-core timeline;
//  - SIMT: a CPU emulator of one warp running the divergent kernel's branch logic (core/ops/simt.h)
//    with an active mask, stepping paths one after another (a GPU since Volta may interleave them;
//    the masks and the cost, about the sum of the paths, are the same).
// Verified by tests/test_simd_mimd.cpp and tests/test_simt.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/op_desc.h"
#include "ops/simt.h"
#include "measure/stats.h"
#include "activation_workload.h"

namespace gpulab::core {

// [SECTION] SIMD on one core
struct SimdComparison {
    bool ok = false;
    std::string error;
    std::string isa;        // "AVX-512", "AVX2+FMA", "SSE2"
    int lanes = 1;          // floats per vector instruction
    int64_t elements = 0;
    Stats scalar, simd;     // single thread each
    double speedup = 0.0;   // scalar median / simd median
    bool results_equal = false;  // within the activation tolerance
};
SimdComparison measure_simd_vs_scalar(Activation activation, int64_t elements, const MeasureConfig& config);

// [SECTION] MIMD: different instruction streams at once
struct TimelineSpan {
    int thread = 0;          // 0-based worker index
    int cpu = -1;            // sched_getcpu() when the span started (-1 if unknown)
    std::string task;        // "sigmoid over 4 M floats", "count primes", ...
    int64_t start_ns = 0;    // relative to MimdTimeline::t0_ns
    int64_t end_ns = 0;
};
struct MimdTimeline {
    bool ok = false;
    std::string error;
    int threads = 0;
    int64_t t0_ns = 0;
    int64_t wall_ns = 0;           // all threads together
    int64_t sequential_ns = 0;     // the same tasks one after another on one thread
    std::vector<TimelineSpan> spans;
};
// Runs `threads` different tasks concurrently (each thread its own kind of work, repeated in
// slices so the timeline shows interleaving), then the same tasks sequentially for comparison.
MimdTimeline run_mimd_demo(int threads, int64_t work_scale);

// [SECTION] SIMT warp emulator
struct WarpStep {
    int path = 0;           // which branch body ran in this step
    uint32_t active = 0;    // bit i set: lane i executed this step; the others were masked off
};
struct WarpTrace {
    int warp = 0;
    std::vector<WarpStep> steps;  // in execution order; steps.size() = distinct paths in the warp
};
// One warp of the divergence kernel, lane by lane with an active mask: each distinct path of the
// warp in turn (ascending path index), the lanes that took it active. Pre-Volta GPUs ran them in
// such an order; later ones may interleave the paths, but each issued instruction still serves one.
WarpTrace emulate_warp(simt::Pattern pattern, int warp_index);
// Average distinct paths per warp over `warps` warps: the theoretical slowdown vs Uniform.
double theoretical_factor(simt::Pattern pattern, int warps);

std::string_view pattern_name(simt::Pattern p);   // "uniform", "lane-parity", "4-way", ...
std::string_view pattern_label(simt::Pattern p);  // "Uniform", "Split by lane parity", ...
// The inverse of pattern_name (command line, lesson files); nullopt for an unknown name.
std::optional<simt::Pattern> parse_pattern(std::string_view name);

// [SECTION] sizing the GPU divergence run
// A divergence factor is the ratio of two kernel times measured with CUDA events, and the launch
// ramp and tail (2-3 us) sit inside each. A few microseconds of work would squash the factors (an
// H100 would read ~20 or single digits for the 32-way split instead of ~32), so:
//  - the grid fills every SM several times over, so that warps are issue-bound rather than latency-
//    bound: at least kDivergenceWaves x sm_count x threads_per_sm elements (a power of two, and at
//    least `floor_elements`; without a device sm_count is 0 and only the floor counts);
//  - after a first uniform run, the work per path grows until the uniform kernel takes at least
//    kDivergenceTargetNs (divergence_iterations), and every pattern is then measured with it.
inline constexpr int kDivergenceWaves = 4;
inline constexpr int64_t kDivergenceTargetNs = 100'000;
inline constexpr int kMaxDivergenceIterations = 4096;
int64_t divergence_elements(int sm_count, int threads_per_sm, int64_t floor_elements);
// Iterations that bring a uniform run measured at `uniform_ns` with `iterations` to the target,
// rounded up to a power of two and capped at kMaxDivergenceIterations; `iterations` when it is
// already there or nothing was measured.
int divergence_iterations(int iterations, int64_t uniform_ns);

// Every pattern in declaration order (menus, the bench, the tests).
inline constexpr std::array<simt::Pattern, simt::kPatternCount> kAllPatterns = {
    simt::Pattern::Uniform,  simt::Pattern::LaneParity, simt::Pattern::FourWay, simt::Pattern::EightWay,
    simt::Pattern::ThirtyTwoWay, simt::Pattern::Random, simt::Pattern::PerWarp};

// Bounds run_mimd_demo accepts (outside them it answers ok=false with a sentence).
inline constexpr int kMaxMimdThreads = 64;
inline constexpr int64_t kMaxMimdWorkScale = 64;

}  // namespace gpulab::core
