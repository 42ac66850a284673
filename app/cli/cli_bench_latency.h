// The latency part of `gpulab bench` (see cli_bench_latency.cpp).
#pragma once

#include <vector>

#include "backends/backend.h"
#include "cli.h"

namespace gpulab::app {

// Prints tables, or JSON records continuing the array cmd_bench opened (`first` tracks commas).
void bench_latency(const BenchOptions& options, const std::vector<core::Backend*>& backends, bool& first);

}  // namespace gpulab::app
