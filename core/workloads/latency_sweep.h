// The latency-vs-throughput lesson's size sweep: one op (ReLU by default) from 2^4 to 2^28
// elements on every backend, median and spread per point, GPU time split into phases, and the
// crossover sizes computed from the medians, both counting transfers and with the data already
// resident on the GPU (compute phase only). Verified by tests/test_latency_sweep.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "measure/stats.h"
#include "activation_workload.h"

namespace gpulab::core {

struct SweepPlan {
    std::vector<int64_t> sizes;  // ascending powers of two
    std::string capped;          // why the largest sizes were left out; empty when none were
};

// Powers of two from 2^min_exp to 2^max_exp whose working set (`bytes_per_element` for every
// element) fits `memory_budget` bytes. Exponents are clamped to [0, 40].
SweepPlan plan_sweep(int min_exp, int max_exp, std::size_t bytes_per_element, std::size_t memory_budget);

// Bytes per element the sweep keeps alive at once: input, reference output, one candidate output.
inline constexpr std::size_t kSweepBytesPerElement = 3 * sizeof(float);

struct SweepCell {
    bool ran = false;
    std::string why_not;  // availability reason or run error when !ran
    Stats total, upload, compute, download;
    bool matches_reference = false;
};

struct SweepResult {
    bool ok = false;
    std::string error;                        // whole-sweep failure (cancelled, ...)
    Activation activation = Activation::Relu;
    SweepPlan plan;
    std::vector<std::string> backends;        // column order
    std::vector<BackendKind> kinds;
    std::vector<std::vector<SweepCell>> cells;  // [backend][size index]
    int64_t started_unix_s = 0;

    // Fastest CPU backend's median per size (nullopt where none ran).
    std::vector<std::optional<double>> best_cpu_ns() const;
    // The named backend's median per size: total (with transfers) or compute only (resident).
    std::vector<std::optional<double>> median_ns(std::size_t backend, bool compute_only) const;
};

struct SweepConfig {
    int min_exp = 4, max_exp = 28;
    Activation activation = Activation::Relu;
    int64_t time_per_point_ns = 200'000'000;  // per backend and size, after the minimum samples
    int min_samples_small = 10;               // sizes up to 2^20
    int min_samples_large = 3;                // above: each run is long and stable
    std::size_t memory_budget = 0;            // 0: half of the available host memory
};

// Never throws. progress/cancel as in run_activation. Backends whose time is not a speed
// (kind_is_timed false: cuda-sim) are left out of the result.
SweepResult run_latency_sweep(const SweepConfig& config, std::span<Backend* const> backends,
                              const ProgressFn& progress = {});

struct SweepCrossover {
    std::optional<double> with_transfers;  // "the GPU wins above N = ..." counting upload + download
    std::optional<double> resident;        // the same with the data already on the GPU
    std::string gpu_backend;               // which GPU backend was compared; empty when none ran
};

// Best CPU backend against the first GPU backend that ran at every size.
SweepCrossover sweep_crossover(const SweepResult& result);

// This machine's best CPU curve against a GPU curve recorded on another computer (issue 39), at the
// sizes both have: where that GPU, copies included, would win. Two computers, so the caller says so.
// nullopt also when they share fewer than two sizes.
std::optional<double> crossover_against(const SweepResult& result, const std::vector<int64_t>& gpu_elements,
                                        const std::vector<int64_t>& gpu_median_ns);

// One row per size and backend, with the phase columns, under `caption` as "# " lines. The app
// passes sweep_caption_lines (app/views/latency/sweep_plot.h: gpulab version | lesson | date, CPU, GPU or why
// none, op and range), since the GPU's name comes from kernels/, which core does not include; the
// same caption lets core/compare/compare_import.h read the file back as another machine's sweep.
// Every row's last column is `source` (issue 39: "measured here", or where the shown result was
// measured); `recorded`, when given, adds a GPU recording's curves after them, under its own source.
struct RecordedSweepRows {
    std::string source;  // "recorded on NVIDIA H200, 2026-11-28"
    std::vector<std::string> backends;
    std::vector<std::vector<int64_t>> elements, median_ns;  // per backend, as recorded
};
std::string sweep_csv(const SweepResult& result, const std::vector<std::string>& caption,
                      std::string_view source = "measured here", const RecordedSweepRows* recorded = nullptr);

}  // namespace gpulab::core
