// The "cudnn" training engine: the model's layers on NVIDIA's libraries, the GPU library peer of
// cpu-onednn. Convolutions forward, backward-data and backward-filter, max pooling and ReLU both
// ways, and the bias terms are cuDNN's; the dense layers' matrix products are cuBLAS's
// (cublasSgemm); the loss and the SGD-momentum update are ours. Every tensor stays in device
// memory between calls: a step moves one batch of images in and n x classes logits out.
//
// Built from cudnn_train_engine.cu in a CUDA build that found cuDNN 9's headers; otherwise
// cudnn_train_absent.cpp gives an engine that is unavailable and says why. Plain C++ header.
// Verified by tests/test_cudnn_train_plan.cpp (host side, every machine) and
// tests/test_gpu_train_cudnn.cpp (against cpu-scalar, skipped without a device).
#pragma once

#include <memory>
#include <string>

#include "backends/backend.h"
#include "train/engine.h"

namespace gpulab::gpu {

std::unique_ptr<train::TrainEngine> make_cudnn_train_engine();

}  // namespace gpulab::gpu
