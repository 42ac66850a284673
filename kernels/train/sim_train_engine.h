// "cuda-sim" as a training engine: our CUDA training kernels (kernels/train/*.cuh) run by the SIMT
// simulator, through the same engine body as cuda-kernel (kernel_train_engine.h). Available on
// every machine, CPU-only builds included, so every commit trains with the real kernel code; its
// kind is core::BackendKind::Simulated: results are checked like any engine's, its times are the
// simulation's and never a GPU speed (bench does not time it, the lesson never plots it as a speed).
//
// Slow by design (every CUDA thread is a fiber on the CPU): use it with small models and batches.
#pragma once

#include <memory>

#include "train/engine.h"

namespace gpulab::sim {

std::unique_ptr<train::TrainEngine> make_cuda_sim_train_engine();

}  // namespace gpulab::sim
