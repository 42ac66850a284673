// Every backend this build has, CPU first (cpu-scalar is the reference), then the GPU ones, then
// cuda-sim (kind Simulated: results shown and checked, time never counted as a speed).
#pragma once

#include <vector>

#include "backends/backend.h"

namespace gpulab::app {

core::BackendList make_all_backends();
std::vector<core::Backend*> raw_pointers(const core::BackendList& list);

}  // namespace gpulab::app
