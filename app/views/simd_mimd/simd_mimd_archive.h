// The SIMD vs MIMD lesson's measurement on disk (views/stored_results.h): every member of
// SimdMimdMeasurement, the recorded warps included; core types in workloads/workload_archive.h.
#pragma once

#include "simd_mimd_view.h"
#include "workloads/workload_archive.h"

namespace gpulab::app {

template <class A> void serialize(A& a, PatternCost& c) {
    core::archive_members(a, c, c.pattern, c.theoretical, c.measured, c.kernel_ns, c.measured_factor, c.why);
}
template <class A> void serialize(A& a, WarpReplay& r) { core::archive_members(a, r, r.warp, r.steps, r.start_clock, r.end_clock); }
template <class A> void serialize(A& a, SimdMimdMeasurement& m) {
    core::archive_members(a, m, m.activation, m.elements, m.simd, m.mimd, m.costs, m.recorded, m.gpu_ran, m.gpu_reason, m.gpu_error,
      m.sim_refusal, m.started_unix_s);
}

}  // namespace gpulab::app
