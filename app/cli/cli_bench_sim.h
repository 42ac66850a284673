// The SIMT simulator part of `gpulab bench` (`--suite sim`, see cli_bench_sim.cpp).
#pragma once

#include "cli.h"

namespace gpulab::app {

// Prints a table, or JSON records continuing the array cmd_bench opened (`first` tracks commas).
// Returns the number of launches that failed.
int bench_sim(const BenchOptions& options, bool& first);

}  // namespace gpulab::app
