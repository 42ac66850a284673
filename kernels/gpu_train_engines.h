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

#include "train/cpu_layers.h"
#include "train/engine.h"

namespace gpulab::gpu {

// cuda-kernel, cudnn, then cuda-sim.
train::TrainEngineList make_gpu_train_engines();
// One of them by name, or nullptr.
std::unique_ptr<train::TrainEngine> make_gpu_train_engine(std::string_view name);
// "cuda-kernel, cudnn, cuda-sim", for messages.
std::string gpu_train_engine_names();

// The precision rule of our kernels' engines (cuda-kernel, built or absent, and cuda-sim): FP32
// only. TF32 and FP16 mixed are refused with sentences of their own (our kernels multiply on the
// ordinary FP32 units, never on tensor cores, so there is nothing to switch; they name where each
// runs), BF16 with the base class's.
void check_kernel_engine_precision(const train::TrainEngine& engine, train::ComputePrecision p);

// cuda-kernel alone (the CUDA build's or the absent one).
std::unique_ptr<train::TrainEngine> make_cuda_kernel_train_engine();

// For tests: cuda-kernel's training kernels one layer per call behind cpu-scalar's table of layer
// functions (train/layer_table.h), on this machine's GPU; nullptr in a build without CUDA. Each
// call throws cuda::CudaError (a std::runtime_error) where there is no usable device. The
// simulator's twin is sim::sim_train_layer_ops() (train/sim_train_layers.h).
const train::CpuLayerOps* cuda_train_layer_ops();

}  // namespace gpulab::gpu
