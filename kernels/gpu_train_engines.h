// The GPU training engines, as plain C++ (no CUDA headers): what `gpulab train`, `bench --suite
// train` and the training lesson list beside the CPU engines (core/train/engine.h). Always
// returned, even where they cannot run: availability() says why, so a list can show the reason.
//
//   cuda-kernel  our kernels (kernels/train/*.cuh) on this machine's GPU; kind Gpu. Implemented by
//                train/cuda_train_engine.cu in a CUDA build, by train/cuda_train_absent.cpp (always
//                unavailable: "CUDA not compiled in") otherwise.
//   cudnn        NVIDIA's cuDNN and cuBLAS with our loss and update kernels (cudnn_train_engine.h);
//                kind Gpu. cudnn_train_absent.cpp (unavailable, with the build's reason) without
//                CUDA, cuDNN 9 headers or cuBLAS's header.
//   cuda-sim     the same kernels on the SIMT simulator; kind Simulated (never timed as a speed).
//                Available everywhere.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "train/engine.h"

namespace gpulab::gpu {

// cuda-kernel, cudnn, then cuda-sim.
train::TrainEngineList make_gpu_train_engines();
// One of them by name, or nullptr.
std::unique_ptr<train::TrainEngine> make_gpu_train_engine(std::string_view name);
// "cuda-kernel, cudnn, cuda-sim", for messages.
std::string gpu_train_engine_names();

// cuda-kernel alone (the CUDA build's or the absent one).
std::unique_ptr<train::TrainEngine> make_cuda_kernel_train_engine();

}  // namespace gpulab::gpu
