// The convolution lesson's measurement on disk (views/stored_results.h): every member of
// ConvMeasurement; the core types' serialize functions are in workloads/workload_archive.h.
#pragma once

#include "conv2d_view.h"
#include "workloads/workload_archive.h"

namespace gpulab::app {

template <class A> void serialize(A& a, ConvMeasurement& m) { core::archive_members(a, m, m.run, m.pooled, m.pool_error); }

}  // namespace gpulab::app
