// cuda-kernel's training engine: the engine body (kernel_train_engine.h) instantiated with
// CudaDevice (cuda_device.cuh), so nvcc compiles the same kernel headers the simulator runs.
// Available where gpu::probe() found a usable device; otherwise availability() gives the probe's
// reason verbatim and setup() refuses with it. Also the per-layer table the tests use
// (cuda_train_layer_ops, train/layer_table.h).
#include "cuda/cuda_device_env.cuh"

#include "gpu_backends.h"
#include "cuda_device.cuh"
#include "cuda/staged_backend.cuh"
#include "kernel_train_engine.h"
#include "layer_table.h"

#include "gpu_train_engines.h"

namespace gpulab::gpu {

std::unique_ptr<train::TrainEngine> make_cuda_kernel_train_engine() {
    using Engine = kern::KernelTrainEngine<cuda::CudaDevice>;
    return std::make_unique<Engine>(Engine::Identity{
        "cuda-kernel", "our own CUDA kernels for every layer, on this machine's GPU",
        "direct convolutions (one thread per output, weight gradients one thread per tap), tiled 16x16 "
        "shared-memory matrix multiply for the dense layers, one thread per image for the loss",
        core::BackendKind::Gpu, [] {
            const GpuProbe& p = probe();
            if (!p.device_ok) return core::Availability{false, p.reason};
            // A sticky error anywhere in this process (an engine's or a backend's) ends the GPU's use.
            if (std::string lost = cuda::context_lost_reason(); !lost.empty()) return core::Availability{false, lost};
            return core::Availability{true, ""};
        }});
}

const train::CpuLayerOps* cuda_train_layer_ops() {
    return &kern::LayerTable<cuda::CudaDevice>::ops("cuda-kernel", "our CUDA training kernels on this machine's GPU");
}

}  // namespace gpulab::gpu
