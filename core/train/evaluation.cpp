// Confusion matrix, softmax confidence and the evaluation loop: see evaluation.h.
#include "evaluation.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "trainer.h"

namespace gpulab::train {

ConfusionMatrix::ConfusionMatrix(int classes)
    : classes_(std::max(classes, 1)), cells_(static_cast<std::size_t>(classes_) * static_cast<std::size_t>(classes_)) {}

void ConfusionMatrix::add(int truth, int predicted) {
    if (truth < 0 || truth >= classes_ || predicted < 0 || predicted >= classes_) return;
    ++cells_[static_cast<std::size_t>(truth * classes_ + predicted)];
    ++total_;
}

std::optional<ConfusionMatrix> ConfusionMatrix::from_cells(int classes, std::vector<std::int64_t> cells) {
    if (classes < 1 || classes > 4096 ||
        cells.size() != static_cast<std::size_t>(classes) * static_cast<std::size_t>(classes))
        return std::nullopt;
    ConfusionMatrix m(classes);
    for (const std::int64_t c : cells) {
        if (c < 0 || m.total_ > INT64_MAX - c) return std::nullopt;
        m.total_ += c;
    }
    m.cells_ = std::move(cells);
    return m;
}

std::int64_t ConfusionMatrix::count(int truth, int predicted) const {
    if (truth < 0 || truth >= classes_ || predicted < 0 || predicted >= classes_) return 0;
    return cells_[static_cast<std::size_t>(truth * classes_ + predicted)];
}

std::int64_t ConfusionMatrix::row_total(int truth) const {
    std::int64_t n = 0;
    for (int p = 0; p < classes_; ++p) n += count(truth, p);
    return n;
}

double ConfusionMatrix::accuracy() const {
    if (total_ == 0) return 0.0;
    std::int64_t right = 0;
    for (int c = 0; c < classes_; ++c) right += count(c, c);
    return static_cast<double>(right) / static_cast<double>(total_);
}

double ConfusionMatrix::class_accuracy(int truth) const {
    const std::int64_t n = row_total(truth);
    return n ? static_cast<double>(count(truth, truth)) / static_cast<double>(n) : 0.0;
}

void ConfusionMatrix::most_confused(int& truth, int& predicted) const {
    truth = predicted = -1;
    std::int64_t best = 0;
    for (int t = 0; t < classes_; ++t)
        for (int p = 0; p < classes_; ++p)
            if (t != p && count(t, p) > best) {
                best = count(t, p);
                truth = t;
                predicted = p;
            }
}

std::vector<float> softmax(const float* logits, int classes) {
    std::vector<float> p(static_cast<std::size_t>(std::max(classes, 0)));
    if (classes <= 0) return p;
    const float top = *std::max_element(logits, logits + classes);
    double sum = 0.0;
    for (int c = 0; c < classes; ++c) {
        p[static_cast<std::size_t>(c)] = std::exp(logits[c] - top);
        sum += p[static_cast<std::size_t>(c)];
    }
    for (float& v : p) v = static_cast<float>(v / sum);
    return p;
}

Prediction predict_from_logits(const float* logits, int classes) {
    Prediction r;
    const std::vector<float> p = softmax(logits, classes);
    if (p.empty()) return r;
    r.predicted = static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
    r.confidence = p[static_cast<std::size_t>(r.predicted)];
    return r;
}

Evaluation evaluate(TrainEngine& engine, const ImageSet& set, int classes, std::int64_t batch, std::int64_t count,
                    std::int64_t keep) {
    Evaluation e{ConfusionMatrix(classes), {}};
    const std::int64_t n_all = count > 0 ? std::min(count, set.count) : set.count;
    batch = std::max<std::int64_t>(batch, 1);
    const std::int64_t size = set.rows * set.cols;
    std::vector<float> images(static_cast<std::size_t>(batch * size));
    std::vector<std::uint8_t> labels(static_cast<std::size_t>(batch));
    std::vector<std::int64_t> idx(static_cast<std::size_t>(n_all));
    std::iota(idx.begin(), idx.end(), 0);
    for (std::int64_t first = 0; first < n_all; first += batch) {
        const std::int64_t n = std::min(batch, n_all - first);
        gather_batch(set, idx.data() + first, n, images.data(), labels.data());
        engine.forward(images.data(), n);
        const std::vector<float> logits = engine.logits();
        for (std::int64_t m = 0; m < n; ++m) {
            Prediction p = predict_from_logits(logits.data() + m * classes, classes);
            p.index = first + m;
            p.truth = labels[static_cast<std::size_t>(m)];
            e.confusion.add(p.truth, p.predicted);
            if (static_cast<std::int64_t>(e.first.size()) < keep) e.first.push_back(p);
        }
    }
    return e;
}

}  // namespace gpulab::train
