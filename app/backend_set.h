// Every backend this build has, CPU first (cpu-scalar is the reference), then the GPU ones.
#pragma once

#include <vector>

#include "backend.h"

namespace gpulab::app {

core::BackendList make_all_backends();
std::vector<core::Backend*> raw_pointers(const core::BackendList& list);

// For a frame: b.availability(), except that a GPU backend answers {false, gpu::kProbing} until
// gpu::probe() has finished, so drawing never waits for driver start-up and context creation.
core::Availability availability_now(const core::Backend& b);

}  // namespace gpulab::app
