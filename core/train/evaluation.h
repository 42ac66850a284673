// What a trained model gets right and wrong on held-out images: a confusion matrix (rows: the true
// class, columns: the predicted one), the softmax confidence of each prediction, and the first few
// predictions kept for the lesson to draw. Plain C++ on any TrainEngine, so the lesson's worker and
// the tests share it. Verified by tests/test_train_evaluation.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dataset.h"
#include "engine.h"

namespace gpulab::train {

class ConfusionMatrix {
public:
    // Not explicit without an argument, so a struct holding one can be brace-initialised member by
    // member (the results store counts a type's members that way: workloads/field_count.h).
    ConfusionMatrix() : ConfusionMatrix(10) {}
    explicit ConfusionMatrix(int classes);
    // Counts one image; labels outside 0..classes-1 are ignored (never out of bounds).
    void add(int truth, int predicted);
    int classes() const { return classes_; }
    std::int64_t count(int truth, int predicted) const;
    std::int64_t total() const { return total_; }
    std::int64_t row_total(int truth) const;
    double accuracy() const;                 // the diagonal over everything counted; 0 when empty
    double class_accuracy(int truth) const;  // recall of one class; 0 when it has no images
    // The largest off-diagonal cell: the pair the model confuses most (-1, -1 when none).
    void most_confused(int& truth, int& predicted) const;

    // Every cell, row-major, and a matrix rebuilt from them (the results store keeps a run's
    // matrix so a stored training run shows its results tab): nullopt when the count is not
    // classes x classes or a cell is negative.
    const std::vector<std::int64_t>& cells() const { return cells_; }
    static std::optional<ConfusionMatrix> from_cells(int classes, std::vector<std::int64_t> cells);

private:
    int classes_;
    std::int64_t total_ = 0;
    std::vector<std::int64_t> cells_;  // classes x classes, row-major
};

struct Prediction {
    std::int64_t index = 0;  // into the image set
    int truth = 0;
    int predicted = 0;
    float confidence = 0.0f;  // softmax probability of `predicted`, in (0, 1]
};

// Softmax of one row of logits (numerically safe: the largest logit is subtracted first).
std::vector<float> softmax(const float* logits, int classes);
// The predicted class and its softmax probability.
Prediction predict_from_logits(const float* logits, int classes);

struct Evaluation {
    ConfusionMatrix confusion;
    std::vector<Prediction> first;  // the first `keep` images of the set, in order
    double accuracy() const { return confusion.accuracy(); }
};

// Runs `engine` (already set up with the trained parameters, max_batch >= batch) forward over the
// first `count` images of `set` (all when count <= 0) in batches; keeps the first `keep` predictions.
Evaluation evaluate(TrainEngine& engine, const ImageSet& set, int classes, std::int64_t batch, std::int64_t count = 0,
                    std::int64_t keep = 16);

}  // namespace gpulab::train
