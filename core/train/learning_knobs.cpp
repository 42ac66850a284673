// Learning rate range, updates per epoch, one picture's cross-entropy: see learning_knobs.h.
#include "learning_knobs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "measure/format.h"

namespace gpulab::train {

std::string learning_rate_problem(double rate) {
    // One sentence each; the range is written out because the slider and --lr both show it.
    if (std::isnan(rate)) return "the learning rate is not a number";
    if (rate <= 0.0)
        return "a learning rate of " + format_learning_rate(rate) +
               " would not move the weights downhill: it must be positive (gpulab accepts 0.0001 to 1)";
    if (rate < kMinLearningRate)
        return "a learning rate below 0.0001 barely moves the weights in a run that fits a class: gpulab "
               "accepts 0.0001 to 1";
    if (rate > kMaxLearningRate)
        return "a learning rate above 1 makes every update overshoot and the loss run away: gpulab accepts "
               "0.0001 to 1";
    return "";
}

std::string format_learning_rate(double rate) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", rate);
    return buf;
}

std::int64_t updates_per_epoch(std::int64_t images, std::int64_t batch) {
    if (images <= 0) return 0;
    const std::int64_t b = std::max<std::int64_t>(batch, 1);
    return (images + b - 1) / b;
}

double picture_cross_entropy(const float* logits, int classes, int truth) {
    if (truth < 0 || truth >= classes) return std::numeric_limits<double>::quiet_NaN();
    double top = logits[0];
    for (int c = 1; c < classes; ++c) top = std::max(top, static_cast<double>(logits[c]));
    double sum = 0.0;
    for (int c = 0; c < classes; ++c) sum += std::exp(static_cast<double>(logits[c]) - top);
    return top + std::log(sum) - static_cast<double>(logits[truth]);
}

}  // namespace gpulab::train
