// The tensor-core lesson's "Training in BF16" (issue 29 part 5): the training lesson's CNN trained
// three times on one CPU engine, in FP32, in BF16 mixed precision and with BF16 weights
// (compute_precision.h), from the same initial weights on the same batches in the same order, for
// the same number of batches; each lane's loss after every batch, its test accuracy at the end, and
// how many of its weight updates were lost. Plain C++ so the view's worker only calls it and the
// tests check it. Verified by tests/test_mixed_precision_train.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compute_precision.h"
#include "dataset.h"
#include "engine.h"

namespace gpulab::train {

struct PrecisionRaceConfig {
    std::string engine = "cpu-parallel";
    std::int64_t batch = 64;
    std::int64_t batches = 30;       // per lane: every lane sees the same batches
    std::int64_t test_images = 1000;  // the first ones of the test set
    std::uint64_t seed = 1;
    Sgd sgd;
};

struct PrecisionLane {
    ComputePrecision precision = ComputePrecision::Fp32;
    std::string label;   // the engine's precision(): "BF16 products, FP32 master weights"
    bool ran = false;
    std::string reason;  // why it did not run
    std::vector<float> batch_loss;  // after every batch, in order
    std::int64_t train_ns = 0;      // forward, backward and update of its batches
    double test_accuracy = 0.0;     // after its last batch, on the test images
    UpdateCounts updates;
    // The mean loss of the last `n` batches (fewer when it ran fewer); NaN when it ran none.
    double last_loss(std::size_t n) const;
};

struct PrecisionRace {
    bool ok = false;
    std::string error;        // "cancelled", or why nothing ran
    PrecisionRaceConfig config;
    std::string implementation;  // the engine's, in words
    std::string pictures;        // "9,600 Fashion-MNIST training pictures, 1,000 test pictures", or synthetic ones and why
    std::int64_t started_unix_s = 0;
    std::int64_t wall_ns = 0;    // the whole race, test passes included
    std::vector<PrecisionLane> lanes;  // FP32, BF16 mixed, BF16 pure
    const PrecisionLane* lane(ComputePrecision p) const;
};

// A learnable stand-in when Fashion-MNIST is not installed: class c is a bright 4 x 4 square at one of
// ten places on noise, 28 x 28, from the seed.
ImageSet synthetic_pictures(std::int64_t count, std::uint64_t seed);

// Runs the three lanes on `data` (its first batch x batches training and test_images test pictures;
// `pictures` is what the result says they are). `keep_going(fraction)` false, or core's stop request,
// ends it with error "cancelled". Never throws.
PrecisionRace run_precision_race(const Dataset& data, const std::string& pictures, const PrecisionRaceConfig& config,
                                 const std::function<bool(float)>& keep_going = {});

// What the race showed, in sentences computed from it: what ran, how many updates BF16 weights lost
// and how many the FP32 master weights kept (each lane's loss and accuracy are the table's). Empty
// when !ok.
std::vector<std::string> describe_precision_race(const PrecisionRace& race);

// The predict prompt "what share of the BF16-weight lane's updates are lost?" (reveal
// "updates-lost:bf16-pure"). Each choice names a band of percent, as core::choice_percent_band reads
// it; the answer picks the band that holds the measured share and says it with the counts.
inline constexpr const char* kUpdatesLostReveal = "updates-lost:bf16-pure";
struct PrecisionAnswer {
    bool ok = false;
    int best_choice = -1;
    double percent = 0.0;
    std::string text;
};
PrecisionAnswer answer_updates_lost_prompt(const std::vector<std::string>& choices, const PrecisionRace& race);

}  // namespace gpulab::train
