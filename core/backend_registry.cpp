#include "backend.h"
#include "cpu_parallel.h"
#include "cpu_scalar.h"

namespace gpulab::core {

BackendList make_cpu_backends() {
    BackendList list;
    list.push_back(cpu::make_scalar_backend());  // first: the reference
    list.push_back(cpu::make_parallel_backend());
    return list;
}

}  // namespace gpulab::core
