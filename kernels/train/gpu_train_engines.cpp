// The GPU training engines' factory (gpu_train_engines.h). Plain C++ in every build: cuda-kernel
// comes from the CUDA build's cuda_train_engine.cu or from cuda_train_absent.cpp.
#include "gpu_train_engines.h"

#include "cudnn_train_engine.h"
#include "io/image_io.h"
#include "sim_train_engine.h"

namespace gpulab::gpu {

train::TrainEngineList make_gpu_train_engines() {
    train::TrainEngineList list;
    list.push_back(make_cuda_kernel_train_engine());
    list.push_back(make_cudnn_train_engine());
    list.push_back(sim::make_cuda_sim_train_engine());
    return list;
}

std::unique_ptr<train::TrainEngine> make_gpu_train_engine(std::string_view name) {
    if (name == "cuda-kernel") return make_cuda_kernel_train_engine();
    if (name == "cudnn") return make_cudnn_train_engine();
    if (name == "cuda-sim") return sim::make_cuda_sim_train_engine();
    return nullptr;
}

std::string gpu_train_engine_names() { return "cuda-kernel, cudnn, cuda-sim"; }

void check_kernel_engine_precision(const train::TrainEngine& engine, train::ComputePrecision p) {
    if (p == train::ComputePrecision::Tf32)
        throw core::InputError(std::string(engine.name()) +
                               " runs our kernels, which multiply FP32 on the ordinary FP32 units, not on tensor cores "
                               "(TF32 is a tensor-core format): TF32 runs on cudnn (compute capability 8.0 or newer) "
                               "and, modelled by rounding, on cpu-scalar and cpu-parallel");
    if (p == train::ComputePrecision::Fp16Mixed)
        throw core::InputError(std::string(engine.name()) +
                               " runs our kernels, which multiply FP32 on the ordinary FP32 units, not on tensor cores: "
                               "FP16 mixed precision (FP16 products, FP32 master weights, loss scaling) runs on cudnn "
                               "(compute capability 7.0 or newer) and, modelled by rounding, on cpu-scalar and "
                               "cpu-parallel");
}

}  // namespace gpulab::gpu
