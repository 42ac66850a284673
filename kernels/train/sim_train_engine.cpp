// cuda-sim's training engine: the engine body (kernel_train_engine.h) instantiated with SimDevice,
// so the kernel headers are compiled here by the host compiler against the simulator's device
// environment. See sim_train_engine.h.
#include "sim/sim_device_env.h"

#include "sim_device.h"
#include "kernel_train_engine.h"

#include "sim_train_engine.h"

namespace gpulab::sim {

std::unique_ptr<train::TrainEngine> make_cuda_sim_train_engine() {
    using Engine = kern::KernelTrainEngine<SimDevice>;
    return std::make_unique<Engine>(Engine::Identity{
        "cuda-sim",
        "our CUDA training kernels on the SIMT simulator (checks the kernels; its time is not a GPU's)",
        "the cuda-kernel engine's kernels (direct convolutions, tiled 16x16 matrix multiply) run by the SIMT "
        "simulator on the CPU",
        core::BackendKind::Simulated, [] { return core::Availability{true, ""}; }});
}

}  // namespace gpulab::sim
