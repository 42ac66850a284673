// The stop-request part of `gpulab bench` (`--suite stop`, see cli_bench_stop.cpp).
#pragma once

#include "cli.h"

namespace gpulab::app {

// Prints a table, or JSON records continuing the array cmd_bench opened (`first` tracks commas).
// Returns the number of whole runs that failed; a run that did not stop when asked is shown as such.
int bench_stop(const BenchOptions& options, bool& first);

}  // namespace gpulab::app
