// cpu-onednn for training: the model's layers as oneDNN 2.x primitives (convolution forward,
// backward-data and backward-weights; ReLU and max pooling forward and backward; inner product
// three ways), the CPU library peer that cpu-parallel is measured against. The loss and the SGD
// update are ours (cpu-parallel's), as they are for every backend. Built only with oneDNN
// (onednn_train_engine.cpp); otherwise onednn_train_absent.cpp gives an engine that is
// unavailable and says why. Verified by tests/test_train_engines.cpp against cpu-scalar.
#pragma once

#include <memory>

#include "engine.h"

namespace gpulab::train {

std::unique_ptr<TrainEngine> make_onednn_train_engine();

}  // namespace gpulab::train
