// Refusing sizes before allocating: a student who types 2^34 elements gets a sentence, not an
// out-of-memory kill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "availability.h"

namespace gpulab::core {

// MemAvailable from /proc/meminfo (0 when unknown).
std::size_t available_host_memory();

// How much one view's results cache (core/measure/result_cache.h) may keep: an eighth of the
// memory available at start, between 64 and 512 MiB, so four views' caches stay a modest share of
// a student's laptop.
std::size_t results_cache_bytes();

// ok when `bytes` fit in `fraction` of available host memory; otherwise a message that names the
// request and what is free.
Availability check_host_allocation(std::size_t bytes, double fraction = 0.8);

}  // namespace gpulab::core
