// Data-parallel training: N workers, each with its own engine and a full copy of the model, train
// as one. Every step each worker takes its slice of the same global batch (shard.h), runs forward
// and backward on it, weights its gradient by its share of the batch, and the workers sum their
// gradients (GradientReducer::sum, MPI_Allreduce between processes); each then makes the same SGD
// step from the same sum, so the weights stay equal on every worker without ever being sent. With
// the same global batch this is single-process training up to the order floats are added in
// (tests/test_distributed.cpp compares the weights after several steps).
//
// What it costs is measured per step and per worker (step_timing.h): compute, waiting for the
// slowest worker, and the all-reduce. A straggler can be made on purpose (Straggler) to see the
// others wait.
#pragma once

#include <cstdint>
#include <vector>

#include "gradient_reducer.h"
#include "step_timing.h"
#include "train/dataset.h"
#include "train/engine.h"
#include "train/model.h"
#include "train/trainer.h"

namespace gpulab::distributed {

// One worker made slow on purpose: it sleeps `delay_ns` after its compute, every step.
struct Straggler {
    int rank = -1;  // -1: nobody
    std::int64_t delay_ns = 0;
};

struct DataParallelEpoch {
    // The whole run's epoch, as train::Trainer reports it: loss and train accuracy over every
    // worker's images, test accuracy after the epoch, images of all workers. train_ns is this
    // worker's wall time (every worker's is within a step of it, since they meet every step);
    // layer_ns is left empty.
    train::EpochReport report;
    std::vector<std::vector<StepTiming>> steps;  // [worker][step], the same on every worker
    std::vector<WorkerSummary> workers;          // one per worker, rank order
};

class DataParallelTrainer {
public:
    // As train::Trainer: builds the model for the data, initialises it from config.seed (the same
    // on every worker) and sets up the engine for this worker's largest slice of config.batch
    // images, the global batch. Throws core::InputError with a sentence for bad settings, and for
    // an engine that cannot take summed gradients.
    DataParallelTrainer(train::TrainEngine& engine, const train::Dataset& data, const train::TrainConfig& config,
                        GradientReducer& reducer, Straggler straggler = {});

    // Collective: every worker calls it together.
    DataParallelEpoch run_epoch();
    // The fraction of `set` the model classifies correctly, each worker classifying its slice of
    // the images (collective).
    double accuracy(const train::ImageSet& set);

    const train::ModelDesc& model() const { return model_; }
    std::int64_t local_batch() const { return local_batch_; }

private:
    train::TrainEngine& engine_;
    const train::Dataset& data_;
    train::TrainConfig config_;
    GradientReducer& reducer_;
    Straggler straggler_;
    train::ModelDesc model_;
    std::int64_t local_batch_ = 0;
    int epoch_ = 0;
    std::vector<float> images_;
    std::vector<std::uint8_t> labels_;
};

}  // namespace gpulab::distributed
