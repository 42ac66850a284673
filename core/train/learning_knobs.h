// The two knobs of SGD a student turns in the training lesson, as cause and effect: the learning
// rate (how far each update moves the weights; refused with a sentence outside a sane range), the
// batch (a bigger one means fewer updates per epoch), and the loss those knobs act on, for one
// picture: the cross-entropy -ln p(true class) of the network's softmax. Plain C++, shared by the
// trainer (which refuses a bad rate), the lesson's controls and its Train tab.
// Verified by tests/test_train_knobs.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace gpulab::train {

// Rates gpulab accepts (the lesson's slider, `gpulab train --lr`, through the trainer). Below 1e-4
// the weights barely move in a class-length run (the loss curve looks flat, which teaches nothing);
// at 1, with momentum 0.9, the loss already runs away on this model (to ~5e18 in 2,000 pictures),
// so anything above it only repeats that.
inline constexpr double kMinLearningRate = 1e-4;
inline constexpr double kMaxLearningRate = 1.0;

// "" when `rate` is in [kMinLearningRate, kMaxLearningRate], else one sentence saying why not
// (negative, zero, not a number, too small, too large).
std::string learning_rate_problem(double rate);
// "0.05", "0.0003", "1": at most four significant figures, no trailing zeros.
std::string format_learning_rate(double rate);

// Weight updates in one epoch of `images` pictures at `batch` pictures a step: ceil(images / batch),
// since the last, partial batch is a step too. 0 for no images; batch < 1 counts as 1.
std::int64_t updates_per_epoch(std::int64_t images, std::int64_t batch);

// The cross-entropy of one picture from its logits: -ln softmax(logits)[truth], computed as
// log-sum-exp minus the true logit (in double, so a confident wrong answer gives a large finite
// number, not infinity from a probability that rounded to 0). NaN for truth out of range.
double picture_cross_entropy(const float* logits, int classes, int truth);

}  // namespace gpulab::train
