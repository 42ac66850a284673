// cpu-parallel: the fair CPU opponent. All cores (a thread pool) and SIMD within each core
// (vectorised math, including a polynomial exp for sigmoid/tanh/GELU instead of scalar expf).
#pragma once

#include "backend.h"

namespace gpulab::cpu {

std::unique_ptr<core::Backend> make_parallel_backend();

}  // namespace gpulab::cpu
