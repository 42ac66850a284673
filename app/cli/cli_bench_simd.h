// The SIMD-vs-MIMD part of `gpulab bench` (see cli_bench_simd.cpp).
#pragma once

#include "cli.h"

namespace gpulab::app {

// Prints tables, or JSON records continuing the array cmd_bench opened (`first` tracks commas).
// Returns the number of failed checks (a vector result that disagrees with the scalar loop).
int bench_simd(const BenchOptions& options, bool& first);

}  // namespace gpulab::app
