// The training kernels run one layer at a time on the SIMT simulator, behind the same table of
// functions cpu-scalar's layers use (train::CpuLayerOps, core/train/cpu_layers.h): each function
// copies its host inputs into simulator buffers, launches the layer's kernels (train_layers.h,
// launch shapes from train_launch.h) and copies the outputs back (layer_table.h, which also
// gives cuda-kernel's table on a GPU: gpu::cuda_train_layer_ops). So a test compares any layer of
// the GPU code with the reference by calling both tables with the same arguments.
//
// Plain C++ (gpulab_sim, every build). The functions throw std::runtime_error with the simulator's
// sentence when it refuses a launch or catches a bad access.
#pragma once

#include "train/cpu_layers.h"

namespace gpulab::sim {

const train::CpuLayerOps& sim_train_layer_ops();
// The same with every convolution and pooling kernel on its 64-bit index path (IndexMath::Wide),
// which real use takes only past 2^31 elements: the tests check both paths on small tensors.
const train::CpuLayerOps& sim_train_layer_ops_wide();

// Loss scaling's kernels (loss_scale_kernels.cuh, which the cudnn engine launches on a GPU) on the
// simulator, with core's scale_in_place and all_finite as their reference: x *= factor, and whether
// every value of g is finite.
void sim_scale_in_place(float* x, std::int64_t count, float factor);
bool sim_all_finite(const float* g, std::int64_t count);

}  // namespace gpulab::sim
