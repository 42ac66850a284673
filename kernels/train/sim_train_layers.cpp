// sim_train_layer_ops(): the training kernels on the SIMT simulator, one layer per call (see
// sim_train_layers.h and layer_table.h). The device environment comes first, so the kernel headers
// compile with the host compiler; the launches are the same template code the GPU engine runs.
#include "sim/sim_device_env.h"

#include "sim_device.h"
#include "layer_table.h"

#include "sim_train_layers.h"

namespace gpulab::sim {

const train::CpuLayerOps& sim_train_layer_ops() {
    return kern::LayerTable<SimDevice>::ops("cuda-sim", "our CUDA training kernels on the SIMT simulator");
}

const train::CpuLayerOps& sim_train_layer_ops_wide() {
    return kern::LayerTable<SimDevice, kern::IndexMath::Wide>::ops(
        "cuda-sim (64-bit indices)", "our CUDA training kernels on the SIMT simulator, 64-bit index arithmetic forced");
}

void sim_scale_in_place(float* x, std::int64_t count, float factor) {
    kern::LayerTable<SimDevice>::scale_in_place(x, count, factor);
}

bool sim_all_finite(const float* g, std::int64_t count) { return kern::LayerTable<SimDevice>::all_finite(g, count); }

}  // namespace gpulab::sim
