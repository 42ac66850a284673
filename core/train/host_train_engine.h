// What the training engines that keep their numbers in host memory share (cpu-scalar and
// cpu-parallel in cpu_engine.cpp, cpu-onednn in onednn_train_engine.cpp): the buffers a run holds
// between calls, sized once by setup, and the read-backs, which only copy them. The engines differ
// in how they compute, so that is all they leave to this class. GPU engines keep theirs on the
// device and do not use it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine.h"
#include "io/image_io.h"  // core::InputError

namespace gpulab::train {

class HostTrainEngine : public TrainEngine {
public:
    core::Availability availability() const override { return {true, ""}; }

    std::vector<float> logits() const override {
        const auto count = static_cast<std::ptrdiff_t>(n_ * model_.classes);
        return {outputs_.back().begin(), outputs_.back().begin() + count};
    }
    std::vector<float> gradients() const override { return grads_; }
    std::vector<float> params() const override { return params_; }
    std::vector<LayerTime> layer_times() const override { return times_; }
    bool takes_summed_gradients() const override { return true; }
    void set_gradients(const std::vector<float>& gradients) override {
        if (gradients.size() != grads_.size())
            throw core::InputError("the summed gradients (" + std::to_string(gradients.size()) +
                                   " values) do not fit the model (" + std::to_string(grads_.size()) + ")");
        grads_ = gradients;
    }

protected:
    // The checks every engine starts with, then every buffer below sized for `max_batch` images.
    void setup_host_buffers(const ModelDesc& model, const std::vector<float>& params, std::int64_t max_batch) {
        check_setup_arguments(model, params, max_batch);
        model_ = model;
        max_batch_ = max_batch;
        params_ = params;
        grads_.assign(params.size(), 0.0f);
        velocity_.assign(params.size(), 0.0f);
        input_.assign(static_cast<std::size_t>(max_batch * model.input.size()), 0.0f);
        outputs_.clear();
        for (const Layer& l : model.layers) outputs_.emplace_back(static_cast<std::size_t>(max_batch * l.out.size()));
        const auto largest = static_cast<std::size_t>(max_batch * model.max_activation());
        grad_in_.assign(largest, 0.0f);
        grad_out_.assign(largest, 0.0f);
        times_.assign(model.layers.size(), {});
        n_ = 0;
    }

    ModelDesc model_;
    std::int64_t max_batch_ = 0;
    std::int64_t n_ = 0;                        // images in the last forward pass
    std::vector<float> params_, grads_, velocity_, input_;
    std::vector<std::vector<float>> outputs_;  // outputs_[i]: layer i's output for the last batch
    std::vector<float> grad_in_, grad_out_;     // ping-pong buffers for the backward pass
    std::vector<LayerTime> times_;
};

}  // namespace gpulab::train
