// The article's sentences, built from ArticleFigures: see article_figures.h.
#include "article_figures.h"

#include "measure/format.h"

namespace gpulab::train {

using F = ArticleFigures;

std::string article_speedup_text() { return core::format_fixed(F::speedup(), 1) + "x"; }

std::string article_experiment_sentence() {
    return "The article's timing (a different model: a Keras CNN of a little over 2 million parameters on " +
           core::format_count(F::kImages) + " pictures, " + std::to_string(F::kEpochs) + " epochs, batch " +
           std::to_string(F::kBatch) + "): 5 min 40 s on a 6-core Ryzen 5 5600X, 13.04 s on an RTX 3070, " +
           "340 / 13.04 = " + article_speedup_text() + " (the article says " + std::to_string(F::kQuotedSpeedup) +
           "x). Not measured here.";
}

std::string article_step_sentence() {
    return "Arithmetic from the article's totals: " + std::to_string(F::steps()) + " steps of up to " +
           std::to_string(F::kBatch) + " pictures, " + core::format_fixed(F::gpu_ms_per_step(), 1) +
           " ms a step on the GPU against " + core::format_fixed(F::cpu_s_per_step(), 2) + " s on the CPU.";
}

std::string article_precision_sentence() {
    return "Precision: the article does not say. TensorFlow's documentation has TF32 on by default on Ampere GPUs "
           "such as the RTX 3070 (since TensorFlow 2.4), so its convolutions and matrix products most likely ran in "
           "TF32 on tensor cores (an inference, not the article's words). This race runs every engine in FP32 (the "
           "precision column says what each ran); gpulab train --backend cudnn --precision tf32 trains in TF32 on a GPU "
           "of compute capability 8.0 or newer.";
}

}  // namespace gpulab::train
