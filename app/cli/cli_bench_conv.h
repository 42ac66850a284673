// The convolution part of `gpulab bench` (see cli_bench_conv.cpp).
#pragma once

#include <vector>

#include "backends/backend.h"
#include "cli.h"

namespace gpulab::app {

// Prints tables, or JSON records continuing the array cmd_bench opened (`first` tracks commas).
// Returns the number of failed checks (a backend that disagrees with the reference).
int bench_conv(const BenchOptions& options, const std::vector<core::Backend*>& backends, bool& first);

}  // namespace gpulab::app
