// The tensor part of `gpulab bench` (see cli_bench_tensor.cpp).
#pragma once

#include "cli.h"

namespace gpulab::app {

// Prints a table per size, or JSON records continuing the array cmd_bench opened (`first` tracks
// commas). Returns the number of failed checks (a product outside its error bound, a run that failed).
int bench_tensor(const BenchOptions& options, bool& first);

}  // namespace gpulab::app
