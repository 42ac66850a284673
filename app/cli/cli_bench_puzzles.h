// The kernel-puzzle part of `gpulab bench` (`--suite puzzles`, see cli_bench_puzzles.cpp).
#pragma once

#include "cli.h"

namespace gpulab::app {

// Prints a table, or JSON records continuing the array cmd_bench opened (`first` tracks commas).
// Returns the number of checks that failed.
int bench_puzzles(const BenchOptions& options, bool& first);

}  // namespace gpulab::app
