// The CPU backends in display order: the reference first (every other result is compared with
// it), then the fast path, then the library peer when it can run (without oneDNN the list is
// unchanged; cpu::make_onednn_backend()->availability() still says why, for `gpulab info`).
// Verified by tests/test_cpu_backends.cpp.
#include "backend.h"
#include "cpu_onednn.h"
#include "cpu_parallel.h"
#include "cpu_scalar.h"

namespace gpulab::core {

BackendList make_cpu_backends() {
    BackendList list;
    list.push_back(cpu::make_scalar_backend());  // first: the reference
    list.push_back(cpu::make_parallel_backend());
    if (auto onednn = cpu::make_onednn_backend(); onednn->availability().ok) list.push_back(std::move(onednn));
    return list;
}

}  // namespace gpulab::core
