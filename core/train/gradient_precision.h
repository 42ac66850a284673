// Why mixed-precision training scales the loss and keeps FP32 master weights (the tensor-core
// lesson, issue 29 part 3), measured on the training lesson's own CNN: one real batch's weight
// gradients (forward and backward on a CPU engine) cast to FP16 and BF16, with and without a loss
// scale; and a weight nudged by the same small step thousands of times, kept in FP32, BF16 or FP16.
// Rounding is core/ops/fp_formats.h's (IEEE round to nearest even). Verified by
// tests/test_gradient_precision.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "ops/fp_formats.h"
#include "dataset.h"

namespace gpulab::train {

// How many values land where when stored in `format` after multiplying by `scale`.
struct CastCounts {
    core::FpFormat format = core::FpFormat::Fp16;
    double scale = 1.0;
    std::int64_t total = 0;
    std::int64_t zero = 0;       // already exactly 0 in FP32 (a ReLU that was off): nothing to lose
    std::int64_t lost = 0;       // not 0 in FP32, 0 in the format: that part of the update is gone
    std::int64_t subnormal = 0;  // kept, with fewer significant bits than the format's normal numbers
    std::int64_t normal = 0;
    std::int64_t overflow = 0;   // beyond the largest finite number: infinity, the step is ruined
    double nonzero() const { return static_cast<double>(total - zero); }
};
CastCounts cast_counts(std::span<const float> values, core::FpFormat format, double scale);

// floor(log2 |g|) of every non-zero value, counted per power of two from 2^min_power to
// 2^max_power; values outside go to the end bins.
struct PowerHistogram {
    int min_power = -40, max_power = 4;
    std::vector<std::int64_t> counts;  // counts[p - min_power]
    std::int64_t zeros = 0;
    int smallest_seen = 0, largest_seen = 0;  // of the non-zero values
};
PowerHistogram power_histogram(std::span<const float> values, int min_power = -40, int max_power = 4);

// A large set of gradients kept as what the lesson shows of it rather than as the values (one
// batch's activation gradients are millions of floats, too many to store with a result): the
// histogram by power of two and the exact counts in FP16 and BF16 under every loss scale 2^0 ..
// 2^max_scale_exp the lesson's slider offers, and the largest scale FP16 takes without overflow.
struct ScaledGradientCounts {
    std::int64_t values = 0;
    int max_scale_exp = 24;
    PowerHistogram histogram;
    std::vector<CastCounts> fp16, bf16;  // [e]: under the loss scale 2^e
    double largest_safe_fp16_scale = 1.0;
    bool empty() const { return values == 0; }
};
ScaledGradientCounts count_scaled_gradients(std::span<const float> values, int max_scale_exp = 24);

struct BatchGradients {
    bool ok = false;
    std::string error;        // why there are none (cancelled, no engine); the lesson says it
    std::string engine;       // "cpu-parallel"
    std::string model_spec;
    std::string pictures;     // "64 Fashion-MNIST training pictures", or random ones and why
    std::int64_t batch = 0;
    int steps_before = 0;     // SGD steps on earlier batches before this one
    double loss = 0.0;        // of the measured batch
    std::vector<float> gradients;  // every weight's and bias's, laid out like the parameters
    // The gradient arriving at each convolution and dense layer from above, every picture's
    // (TrainEngine::activation_gradients): in FP16 training these are stored in FP16 too, and being
    // per picture rather than summed over the batch they are the smaller ones (Micikevicius et al.,
    // "Mixed Precision Training", 2018). Counted, not kept.
    ScaledGradientCounts activations;
};

// The gradients of batch number `steps_before` (0-based) of the training lesson's CNN, freshly
// initialised with `seed`, after SGD steps on the batches before it. `data` null or empty: random
// pictures and labels, said in `pictures`. `keep_going` false between batches stops it ("cancelled").
BatchGradients measure_batch_gradients(const Dataset* data, const std::string& no_data_reason, std::int64_t batch,
                                       int steps_before, std::uint64_t seed, const std::function<bool()>& keep_going = {});

// The largest power-of-two scale under which no value overflows `format` (what dynamic loss
// scaling settles near); 1 when the values are all zero.
double largest_safe_scale(std::span<const float> values, core::FpFormat format);

// The predict prompt "how many of this batch's gradients does FP16 lose or thin?" (reveal
// "gradients-thinned:fp16" or ":bf16", loss scale 1). Each choice names a band of percent of the
// non-zero gradients: "less than X %", "X to Y %" or "more than X %". `band_problem` says why a
// choice's text is not one (the lesson parser refuses it); the answer picks the band holding the
// measured share and says it in a sentence with the counts.
struct GradientAnswer {
    bool ok = false;
    int best_choice = -1;
    double percent = 0.0;
    std::string text;
};
std::string gradient_reveal_problem(const std::string& reveal, const std::vector<std::string>& choices);
GradientAnswer answer_gradient_prompt(const std::string& reveal, const std::vector<std::string>& choices,
                                      const BatchGradients& g);

// A weight starting at `start`, updated `updates` times by w = w - step, the sum rounded to the
// format each time (FP32 master weights: FP32). Sampled at `points` evenly spaced update counts.
struct WeightWalk {
    double start = 1.0, step = 1e-4;
    int updates = 10000;
    std::vector<int> at;  // update counts, 0 first
    std::vector<double> value[4];  // per format of core::kAllFormats at each `at`
    double exact_end = 0.0;        // start - updates * step
};
WeightWalk walk_weight(double start, double step, int updates, int points);

}  // namespace gpulab::train
