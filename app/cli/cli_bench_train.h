// The training part of `gpulab bench` (`--suite train`, see cli_bench_train.cpp).
#pragma once

#include "cli.h"

namespace gpulab::app {

// Prints a table, or JSON records continuing the array cmd_bench opened (`first` tracks commas).
// Returns the number of engines that failed.
int bench_train(const BenchOptions& options, bool& first);

}  // namespace gpulab::app
