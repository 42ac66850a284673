// The elementwise-activations workload: build an input, run the op on every available backend
// with warm-up and repeats, check each result against cpu-scalar, and report medians, spread,
// GB/s and the fraction of a bandwidth limit measured in the same run.
//
// Used by the app's worker thread, `gpulab bench`, `gpulab export` and the tests, so the numbers
// on screen, in the CSV and in docs/benchmarks.md come from one code path.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "lesson/lesson.h"
#include "ops/tensor_compare.h"
#include "ops/op_desc.h"
#include "measure/stats.h"
#include "ops/tensor.h"

namespace gpulab::core {

struct MeasureConfig {
    int warmup = 2;                             // runs before timing (caches, page faults, first CUDA call)
    int min_samples = 10;                       // at least this many timed runs ...
    int max_samples = 100;                      // ... and at most this many
    int64_t time_budget_ns = 1'000'000'000;     // stop adding samples past this (after min_samples)
    bool measure_limits = true;                 // also measure each backend's copy bandwidth
};

struct BackendReport {
    std::string backend;
    BackendKind kind = BackendKind::Cpu;
    Availability availability;  // !ok: the backend did not run; reason says why
    bool ran = false;
    std::string error;          // run failure (ok=false from Backend::run), shown verbatim
    Stats total, upload, compute, download;
    std::vector<int64_t> samples_ns;  // total time of each timed run, in order (live plot history)
    std::vector<PhaseTimes> phases;   // the same runs split into upload / compute / download
    double gbps = 0.0;                // declared bytes / median compute time
    double gflops = 0.0;              // declared flops / median compute time (compute-bound ops: conv2d)
    std::string implementation;       // what a library peer ran (conv2d), see Backend::conv2d_implementation
    double gbps_with_transfers = 0.0; // declared bytes / median total time
    LimitResult limit;                // measured copy bandwidth of this backend (same run)
    double fraction_of_limit = 0.0;   // gbps / limit.gbps
    Comparison check;                 // against cpu-scalar's output
    int64_t moved_bytes = 0;          // RunResult::moved_bytes of the last run (cuda-sim), else 0
    int64_t unique_bytes = 0;         // RunResult::unique_bytes of the last run (cuda-sim), else 0
};

struct ActivationParams {
    Activation activation = Activation::Relu;
    float leaky_alpha = 0.01f;
    int64_t elements = int64_t{1} << 20;  // for the generated input; an image sets its own size
    std::string image_path;               // empty: generated feature map
    uint32_t seed = 1;
};

struct ActivationRun {
    ActivationParams params;
    OpDesc op;
    bool ok = false;
    std::string error;        // whole-run failure (size refused, image unreadable, cancelled)
    Tensor input;             // (H, W)
    Tensor reference_output;  // cpu-scalar's result, for display
    // The first simulated backend's output (cuda-sim), kept for display where no GPU ran: the real
    // kernel's result, checked like the others. Empty when none ran.
    Tensor simulated_output;
    std::string simulated_backend;
    std::vector<BackendReport> reports;  // one per backend passed in, same order
    int64_t started_unix_s = 0;
    // Read back from the results store without the pictures it was stored without (too large for
    // one entry): input and cpu-scalar's output were made again from the seed; no simulated output.
    bool pictures_remade = false;
};

// The settings a run measured, written out: the results cache's key (core/measure/result_cache.h).
std::string activation_config_key(const ActivationParams& p);
// About how much memory a run holds (its pictures), for the cache's budget.
std::size_t activation_run_bytes(const ActivationRun& run);

// "Make it big" (2^24 floats and up) is three pictures of 64 MiB and more: too large for one entry of
// the results store, so it was measured again after every start (issue 41). A run whose input was
// generated (not a picture file) is stored without its pictures instead: everything measured, and
// the seed that makes the input again. Null when the run's pictures could not be made again.
std::shared_ptr<const ActivationRun> activation_run_without_pictures(const ActivationRun& run);
// On reading such a run back (off the UI thread): its input from the seed and cpu-scalar's output
// from the input, so the canvas shows them; true when it has them (false: measure again).
bool remake_activation_pictures(ActivationRun& run);

// Reports progress in [0,1] with a short stage text; return false to cancel.
using ProgressFn = std::function<bool(float fraction, std::string_view stage)>;

// Smallest and largest element counts the lesson offers (2^10 .. 2^26; larger sizes are allowed
// from the command line when memory allows and are refused with a message when it does not).
inline constexpr int64_t kMinActivationElements = int64_t{1} << 10;
inline constexpr int64_t kMaxLessonActivationElements = int64_t{1} << 26;

// A 2D shape (H, W) close to square for `elements` (W a power of two when elements is one).
std::vector<int64_t> feature_map_shape(int64_t elements);

// A smooth, feature-map-like pattern with positive and negative values in about [-3, 3], so
// every activation has something to do on both sides of zero. Deterministic for a seed.
Tensor make_feature_map(int64_t elements, uint32_t seed);

// Applies a lesson step's parameters ("activation", "elements", "leaky_alpha", "image") on top of `base`.
ActivationParams activation_params_from(const std::map<std::string, ParamValue>& params, ActivationParams base);

// The measurement loop every workload shares: `config.warmup` untimed calls of `run_once`, then
// timed calls until at least min_samples and the time budget are spent (at most max_samples).
// Fills rep.samples_ns, rep.phases and the total / upload / compute / download statistics and sets
// rep.ran, or rep.error when a call failed. Progress goes from `base` to base + 0.9 * `share`.
// Returns false only when progress asked to cancel.
bool measure_samples(BackendReport& rep, const MeasureConfig& config, const std::function<RunResult()>& run_once,
                     const ProgressFn& progress, float base, float share);

// backends[0] should be cpu-scalar: it produces the reference. Never throws.
ActivationRun run_activation(const ActivationParams& params, std::span<Backend* const> backends,
                             const MeasureConfig& config, const ProgressFn& progress = {});

}  // namespace gpulab::core
