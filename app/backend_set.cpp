#include "backend_set.h"

#include "gpu_backends.h"

namespace gpulab::app {

core::BackendList make_all_backends() {
    core::BackendList list = core::make_cpu_backends();
    for (auto& b : gpu::make_backends()) list.push_back(std::move(b));
    return list;
}

core::Availability availability_now(const core::Backend& b) {
    if (b.kind() == core::BackendKind::Gpu && !gpu::probe_ready()) return {false, gpu::kProbing};
    return b.availability();
}

std::vector<core::Backend*> raw_pointers(const core::BackendList& list) {
    std::vector<core::Backend*> v;
    v.reserve(list.size());
    for (const auto& b : list) v.push_back(b.get());
    return v;
}

}  // namespace gpulab::app
