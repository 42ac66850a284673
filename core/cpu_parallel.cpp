// Interim: forwards to the reference loop until the threaded SIMD version lands.
#include "cpu_parallel.h"

#include "cpu_scalar.h"

namespace gpulab::cpu {
std::unique_ptr<core::Backend> make_parallel_backend() { return make_scalar_backend(); }
}  // namespace gpulab::cpu
