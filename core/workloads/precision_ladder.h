// What the "precision ladder" step of the tensor-core lesson measures: the error of a dot product
// of length K when its inputs are rounded to FP32, TF32, BF16 or FP16 and the running sum is kept
// in FP32 or in the narrow format itself, against an FP64 reference, for K = 16 ... 65,536.
//
//   x, y: K numbers each, uniform in [0, 1) (splitmix64 from `seed`, 24 random bits each: exact floats)
//   exact = sum_k x_k y_k in FP64 (products of floats are exact in double; the sum's own error,
//           about K 2^-53, is far below every error shown)
//   model = sum_k round(x_k) round(y_k), each multiply-add rounded once into the accumulator
//           (core::multiply_add), k from 0 upwards
//   error = |model - exact| / exact, averaged over `trials` independent pairs of vectors
//
// One pass of length max_k per vector pair and line gives every K at once: the running sum after K
// terms IS the dot product of the first K elements. Positive inputs make the sum grow steadily, so
// a narrow accumulator's step grows with it until added products fall below half a step and are
// lost (FP16 stops near 2,048 x a typical product, BF16 near 256 x): the error with a narrow
// accumulator grows with K, with FP32 accumulation it does not.
//
// Verified by tests/test_precision_ladder.cpp (recomputes the lesson's numbers, checks the
// ordering the predict prompts reveal, cancellation).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ops/fp_formats.h"

namespace gpulab::core {

struct DotSweepConfig {
    int64_t min_k = 16;
    int64_t max_k = 65536;  // powers of two from min_k to max_k
    int trials = 8;
    uint64_t seed = 1;
};
inline constexpr int64_t kDotSweepMaxK = int64_t{1} << 20;  // longer sweeps are refused: seconds of work

struct DotSweepLine {
    FpFormat inputs = FpFormat::Fp32;
    FpFormat accumulate = FpFormat::Fp32;
    std::vector<double> error;  // mean relative error at each K of DotSweep::ks
};

struct DotSweep {
    bool ok = false;
    std::string error;              // why there is no result ("cancelled", a bad configuration)
    DotSweepConfig config;
    std::vector<int64_t> ks;
    std::vector<DotSweepLine> lines;  // FP32/FP32, then each narrow format with FP32 and with itself
    int64_t wall_ns = 0;
    const DotSweepLine* find(FpFormat inputs, FpFormat accumulate) const;
};

// Empty when the configuration is one the sweep runs, else one sentence.
std::string dot_sweep_problem(const DotSweepConfig& c);
// Runs the sweep; `keep_going(fraction)` false (or core::cancel_requested()) stops it: ok=false,
// error "cancelled". Never throws.
DotSweep run_dot_sweep(const DotSweepConfig& c, const std::function<bool(float)>& keep_going = {});

// The line with the largest error at `k` among those accumulating in FP32 (`narrow_accumulator`
// false) or in their own format (true); nullptr when `k` is not swept.
const DotSweepLine* largest_error_at(const DotSweep& s, int64_t k, bool narrow_accumulator);

// "most-error:<fp32|narrow>:<K>", the predict prompts' reveal: false when it is not of that form.
struct MostErrorReveal {
    bool narrow_accumulator = false;
    int64_t k = 0;
};
bool parse_most_error_reveal(std::string_view reveal, MostErrorReveal& out);

// A relative error as the lesson writes it: "75%", "0.0414%" down to 1e-4, then "4.1e-07".
std::string relative_error_text(double e);

// The answer to a "most-error:<fp32|narrow>:<K>" prompt from a sweep: the sentence the view shows and
// which of `choices` names the format that lost the most (-1: none does). ok=false with the reason
// when the prompt or the sweep cannot answer.
struct MostErrorAnswer {
    bool ok = false;
    int best_choice = -1;
    std::string text;
};
MostErrorAnswer answer_most_error(const std::string& reveal, const std::vector<std::string>& choices,
                                  const DotSweep& sweep);

}  // namespace gpulab::core
