#include "backend_set.h"

#include <cstdio>

#include "sim/cuda_sim_backend.h"
#include "backends/fault_injection.h"
#include "gpu_backends.h"

namespace gpulab::app {

core::BackendList make_all_backends() {
    core::BackendList list = core::make_cpu_backends();
    for (auto& b : gpu::make_backends()) list.push_back(std::move(b));
    // Last, on every machine (CPU-only builds too): the CUDA kernel, simulated on the CPU.
    list.push_back(sim::make_cuda_sim_backend());
    // Test-only: GPULAB_INJECT_FAULT="<backend>:<run>:<alloc|fault|lost>" (core/backends/fault_injection.h).
    if (const std::string error = core::inject_fault_from_environment(list); !error.empty())
        std::fprintf(stderr, "gpulab: %s (ignored)\n", error.c_str());
    return list;
}

std::vector<core::Backend*> raw_pointers(const core::BackendList& list) {
    std::vector<core::Backend*> v;
    v.reserve(list.size());
    for (const auto& b : list) v.push_back(b.get());
    return v;
}

}  // namespace gpulab::app
