// The source articles' training figures, in one place, so every screen quotes the same numbers and
// the tests recompute them. Two articles are involved and must never be mixed:
//  - the TIMED experiment: a Keras CNN of a little over 2 million parameters (cats vs dogs), 2,000
//    pictures, 20 epochs, batch 150, 5 min 40 s on a 6-core Ryzen 5 5600X against 13.04 s on an
//    RTX 3070 ("28 times faster", the article says);
//  - the MODEL gpulab trains: another article's code example (Conv2D 32-64-64, Dense 64-10 on
//    28x28x1, 93,322 parameters), which that article does not time.
// So the article's time is never a time for gpulab's model; every sentence below says whose it is.
#pragma once

#include <string>

namespace gpulab::train {

struct ArticleFigures {
    static constexpr double kCpuSeconds = 340.0;  // 20 epochs, 5 min 40 s, 6-core Ryzen 5 5600X
    static constexpr double kGpuSeconds = 13.04;  // the same on an RTX 3070
    static constexpr int kEpochs = 20;
    static constexpr int kImages = 2000;           // pictures per epoch
    static constexpr int kBatch = 150;
    static constexpr int kQuotedSpeedup = 28;      // the article's own rounding ("28 times faster")
    static constexpr double kParameters = 2.0e6;   // "a little over 2 million"

    static double speedup() { return kCpuSeconds / kGpuSeconds; }  // 26.07
    // Keras runs the last, partial batch too: ceil(2,000 / 150) = 14 steps an epoch, 280 in all.
    static int steps_per_epoch() { return (kImages + kBatch - 1) / kBatch; }
    static int steps() { return kEpochs * steps_per_epoch(); }
    static double gpu_ms_per_step() { return kGpuSeconds * 1e3 / steps(); }  // 46.6 ms
    static double cpu_s_per_step() { return kCpuSeconds / steps(); }         // 1.21 s
};

// "26.1x": the ratio of the article's two times, computed here.
std::string article_speedup_text();
// One sentence: whose experiment, on what, both times, the computed ratio and the article's own
// "28x", labelled as the article's and not measured here.
std::string article_experiment_sentence();
// The per-step times that follow from the article's totals, labelled as arithmetic.
std::string article_step_sentence();
// What the article's GPU most likely multiplied in (issue 29), labelled as an inference: the
// article does not say; TensorFlow documents TF32 as on by default on Ampere GPUs.
std::string article_precision_sentence();

}  // namespace gpulab::train
