// One line of a result's key numbers, for the line under Run after the window measured a busy run
// again by itself (app/shell/remeasure_quiet.cpp): the quiet run's times are on screen, and the
// noisy run's stay beside them in words, so a student sees how much the other programs cost.
#pragma once

#include <string>
#include <vector>

#include "workloads/activation_workload.h"

namespace gpulab::app {

// "cpu-scalar 1.67 ms, cpu-parallel 389 us" from the medians of the backends that ran and are timed
// here (a simulated time is never a speed); "" when none did.
std::string medians_headline(const std::vector<core::BackendReport>& reports);

}  // namespace gpulab::app
