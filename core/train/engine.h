// The training-engine interface: one object per backend that trains a whole model (forward pass,
// backward pass and SGD step as a unit, every layer inside), rather than one virtual per op in
// core/backends/backend.h. Why (docs/architecture.md, "Training engines"): training is about ten ops on
// five backends, and an engine must own its state between calls anyway (activations kept for the
// backward pass, gradients, momentum, and on a GPU all of it resident in device memory, so a step
// moves only a batch of images in). Per-op virtuals would copy every tensor across the interface
// each call and spread one model's buffers over five classes.
//
// Every engine runs the same ModelDesc from the same initial parameters; tests compare each with
// cpu-scalar's forward and backward (tests/test_train_engines.cpp). Methods throw (core::InputError
// or std::runtime_error) with a sentence a student can read; the trainer (train/trainer.h) is the
// boundary that catches and reports.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "compute_precision.h"
#include "model.h"

namespace gpulab::train {

// SGD with momentum, in the form PyTorch and Keras use: v = momentum * v - rate * g; w += v.
struct Sgd {
    float learning_rate = 0.05f;
    float momentum = 0.9f;
};

struct BatchResult {
    double loss = 0.0;       // mean cross-entropy over the batch
    std::int64_t correct = 0;  // images whose largest logit is the label
};

// Time per layer of the last forward and backward pass, integer ns (for "where the time goes").
struct LayerTime {
    std::int64_t forward_ns = 0;
    std::int64_t backward_ns = 0;
};

class TrainEngine {
public:
    virtual ~TrainEngine() = default;
    virtual std::string_view name() const = 0;         // the backend's name: "cpu-scalar", ...
    virtual std::string_view description() const = 0;  // one line: how it runs
    virtual core::Availability availability() const = 0;
    // Cpu, Gpu, or Simulated (cuda-sim: GPU kernels on the SIMT simulator, whose times are the
    // simulation's and never enter a speed figure, see core::kind_is_timed).
    virtual core::BackendKind kind() const { return core::BackendKind::Cpu; }

    // Takes the model and its parameters, sizes every buffer for batches up to `max_batch` and
    // zeroes the momentum. Call again to restart from other parameters.
    virtual void setup(const ModelDesc& model, const std::vector<float>& params, std::int64_t max_batch) = 0;
    // images: n x C x H x W floats in [0, 1], n <= max_batch. Keeps what backward needs.
    virtual void forward(const float* images, std::int64_t n) = 0;
    // The loss of the last forward batch against `labels` (n of them) and every parameter's
    // gradient of that mean loss.
    virtual BatchResult backward(const std::uint8_t* labels) = 0;
    // One SGD-with-momentum update from the last backward's gradients.
    virtual void step(const Sgd& sgd) = 0;

    // Read back (copies; for tests, evaluation and the lesson's views).
    virtual std::vector<float> logits() const = 0;     // n x classes of the last forward
    virtual std::vector<float> gradients() const = 0;  // laid out like the parameters
    virtual std::vector<float> params() const = 0;
    virtual std::vector<LayerTime> layer_times() const = 0;  // one per model layer
    // What actually runs, in words, with the instruction set and threads where they matter.
    virtual std::string implementation() const { return ""; }
    // The arithmetic of its products, for the race's precision column (issue 29): every engine
    // multiplies FP32 today; one that lets TF32 or BF16 in says so, since that changes the speed.
    virtual std::string precision() const { return "FP32"; }
    // The arithmetic of the following setup() and run (compute_precision.h): cpu-scalar and
    // cpu-parallel round to BF16 or TF32 where asked; cudnn does TF32 for real on the GPU (FP32
    // where the GPU predates Ampere, and precision() says so); the others multiply in FP32 only
    // and throw core::InputError with a sentence for anything else.
    virtual void set_compute_precision(ComputePrecision p);
    // FP16 mixed precision's loss scale (loss_scaling.h): 0 (the default) scales dynamically; a
    // power of two from 1 to 2^24 keeps that scale (1: no scaling, to see what FP16 loses). Engines
    // without loss scaling throw core::InputError with a sentence.
    virtual void set_loss_scale(float fixed_scale);
    // What the SGD updates did to the stored weights since setup(), counted where the precision is
    // not FP32 (all zero otherwise): the lesson's "updates a BF16 weight lost".
    virtual UpdateCounts update_counts() const { return {}; }
    // The gradient that arrived from above at each convolution and dense layer in the last backward
    // pass (the loss's gradient with respect to that layer's output, every picture's, layer after
    // layer from the first): what the backward products multiply, and in FP16 mixed precision what
    // is stored in FP16 first (the tensor-core lesson's activation gradients). Kept only after
    // keep_activation_gradients(true), by the engines that can (cpu-scalar, cpu-parallel); the
    // others throw core::InputError with a sentence, and read back empty.
    virtual void keep_activation_gradients(bool on);
    virtual std::vector<float> activation_gradients() const { return {}; }
    // Data-parallel training (core/distributed): each worker's backward pass leaves the gradient of
    // its own shard, and the next step() must use the sum over every worker instead, so it is
    // written back here (laid out like gradients()). The engines that keep their numbers in host
    // memory take it; the others say so in takes_summed_gradients() and set_gradients throws
    // core::InputError with a sentence (for a GPU engine the sum would have to go to the device).
    virtual bool takes_summed_gradients() const { return false; }
    virtual void set_gradients(const std::vector<float>& gradients);
};

using TrainEngineList = std::vector<std::unique_ptr<TrainEngine>>;

// The checks every engine's setup() starts with, so each refuses bad arguments with the same
// sentence: throws core::InputError for a batch under 1 or parameters of the wrong count.
void check_setup_arguments(const ModelDesc& model, const std::vector<float>& params, std::int64_t max_batch);

// The CPU engines, reference first: cpu-scalar, cpu-parallel, cpu-onednn (unavailable, with the
// reason, in a build without oneDNN).
TrainEngineList make_cpu_train_engines();
// One engine by backend name, or nullptr.
std::unique_ptr<TrainEngine> make_train_engine(std::string_view name);
// The names make_train_engine knows, for messages ("cpu-scalar, cpu-parallel").
std::string train_engine_names();

}  // namespace gpulab::train
