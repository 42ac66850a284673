// The tensor-core lesson's measurement on disk (views/stored_results.h): the simulated
// instruction's lane data, the kernel checks and the dot-product sweep, every member; core types
// in workloads/workload_archive.h.
#pragma once

#include "sim/sim_kernels.h"
#include "tensor_view.h"
#include "workloads/workload_archive.h"

namespace gpulab::sim {

template <class A> void serialize(A& a, LaneElement& e) { a(e.row, e.col); }
template <class A> void serialize(A& a, MmaLaneData& d) {
    a(d.ok, d.error, d.input, d.a, d.b, d.c, d.d, d.instructions, d.a_owner, d.b_owner, d.c_owner, d.d_owner);
}

}  // namespace gpulab::sim

namespace gpulab::app {

template <class A> void serialize(A& a, KernelCheck& c) {
    a(c.ok, c.error, c.input, c.m, c.n, c.k, c.outputs_differing, c.instructions, c.warps, c.sim_ns);
}
template <class A> void serialize(A& a, TensorMeasurement& m) { a(m.lanes, m.checks, m.sweep, m.started_unix_s); }

}  // namespace gpulab::app
