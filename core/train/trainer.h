// Training a model on a data set with one engine, epoch by epoch: the batch order (shuffled from
// the seed, the same on every backend), pixels scaled to [0, 1] per batch, the engine's forward,
// backward and step, then accuracy on the held-out test images. Used by `gpulab train` and, in a
// worker thread, by the training lesson. The caller's callback sees every batch and can stop.
// Verified by tests/test_train_engines.cpp (above chance after a short run on a small subset).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dataset.h"
#include "engine.h"
#include "model.h"

namespace gpulab::train {

struct TrainConfig {
    std::string model_spec = kDefaultModelSpec;
    std::int64_t batch = 64;
    std::uint64_t seed = 1;
    Sgd sgd;  // the learning rate must pass learning_rate_problem (train/learning_knobs.h)
    // When set, read before every update in place of sgd.learning_rate: the lesson's slider turns the
    // rate of a run while it trains, so the loss curve answers within a batch. A value out of range
    // is ignored (the last good one stays).
    std::shared_ptr<const std::atomic<float>> live_learning_rate;
};

struct EpochReport {
    int epoch = 0;               // 1-based
    std::int64_t images = 0;     // training images seen this epoch
    std::int64_t batches = 0;
    double loss = 0.0;           // mean over the epoch's batches
    double train_accuracy = 0.0; // over the epoch, while the weights moved (what Keras prints)
    double test_accuracy = 0.0;  // after the epoch, on the held-out images
    std::int64_t train_ns = 0;   // forward + backward + step of every batch, batch preparation included
    std::int64_t test_ns = 0;
    bool stopped = false;        // the callback asked to stop before the epoch's end
    // The window's stop request (core::cancel_requested) ended the epoch inside a batch or before
    // the test pass: that batch is not counted and test_accuracy was not measured (it stays 0).
    bool cancelled = false;
    std::vector<LayerTime> layer_ns;  // per model layer, summed over the epoch's batches
    double images_per_second() const { return train_ns > 0 ? images * 1e9 / static_cast<double>(train_ns) : 0.0; }
};

struct BatchProgress {
    int epoch = 0;
    std::int64_t batch = 0, batches = 0;  // batch is 1-based
    BatchResult result;
    std::int64_t batch_ns = 0;
};
// Return false to stop after this batch.
using BatchCallback = std::function<bool(const BatchProgress&)>;

// The order of the `count` training images in epoch `epoch` (1-based): a Fisher-Yates shuffle
// driven by std::mt19937_64 (specified bit for bit), so every backend and machine sees the same.
std::vector<std::int64_t> batch_order(std::int64_t count, std::uint64_t seed, int epoch);

// Images idx[0..n) of `set` as floats in [0, 1] (n x rows x cols) and their labels.
void gather_batch(const ImageSet& set, const std::int64_t* idx, std::int64_t n, float* images, std::uint8_t* labels);
// How many of the pictures set[first, first + count) `engine` classifies right (largest logit = label),
// in forward passes of at most `batch` through `images` and `labels`, buffers of `batch` pictures.
// The trainer's test pass, and each worker's slice of it (core/distributed).
std::int64_t count_correct(TrainEngine& engine, std::int64_t classes, const ImageSet& set, std::int64_t first,
                           std::int64_t count, std::int64_t batch, float* images, std::uint8_t* labels);

class Trainer {
public:
    // Builds the model for the data's image size, initialises it from the seed and sets up the
    // engine. Throws core::InputError with a sentence (bad model spec, batch < 1, a learning rate
    // out of range, ...).
    Trainer(TrainEngine& engine, const Dataset& data, const TrainConfig& config);

    EpochReport run_epoch(const BatchCallback& on_batch = {});
    // Fraction of `set` the model classifies correctly.
    double accuracy(const ImageSet& set);

    const ModelDesc& model() const { return model_; }
    int epochs_done() const { return epoch_; }

private:
    TrainEngine& engine_;
    const Dataset& data_;
    TrainConfig config_;
    ModelDesc model_;
    int epoch_ = 0;
    float rate_ = 0.0f;  // the learning rate of the last update
    std::vector<float> images_;
    std::vector<std::uint8_t> labels_;
};

}  // namespace gpulab::train
