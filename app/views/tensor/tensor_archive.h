// The tensor-core lesson's measurement on disk (views/stored_results.h): the simulated
// instruction's lane data, the kernel checks and the dot-product sweep, every member, and the
// training panel's race of three precisions (stored apart, "tensor-training"); core types
// in workloads/workload_archive.h, training types in views/train_archive.h.
#pragma once

#include "sim/sim_kernels.h"
#include "tensor_view.h"
#include "views/train_archive.h"
#include "workloads/workload_archive.h"

namespace gpulab::sim {

template <class A> void serialize(A& a, LaneElement& e) { core::archive_members(a, e, e.row, e.col); }
template <class A> void serialize(A& a, MmaLaneData& d) {
    core::archive_members(a, d, d.ok, d.error, d.input, d.a, d.b, d.c, d.d, d.instructions, d.a_owner, d.b_owner, d.c_owner, d.d_owner);
}

}  // namespace gpulab::sim

namespace gpulab::app {

template <class A> void serialize(A& a, KernelCheck& c) {
    core::archive_members(a, c, c.ok, c.error, c.input, c.m, c.n, c.k, c.outputs_differing, c.instructions, c.warps, c.sim_ns);
}
// The two C arrays count one member per element (brace elision), so each element is listed.
template <class A> void serialize(A& a, TensorMeasurement& m) {
    core::archive_members(a, m, m.lanes[0], m.lanes[1], m.checks[0], m.checks[1], m.sweep, m.started_unix_s,
                          m.gradients, m.speed);
}

}  // namespace gpulab::app
