// The tensor-core lesson's measurement on disk (views/stored_results.h): the simulated
// instruction's lane data, the kernel checks and the dot-product sweep, every member, and the
// training panel's race of three precisions (stored apart, "tensor-training"); core types
// in workloads/workload_archive.h.
#pragma once

#include "sim/sim_kernels.h"
#include "tensor_view.h"
#include "workloads/workload_archive.h"

namespace gpulab::sim {

template <class A> void serialize(A& a, LaneElement& e) { core::archive_members(a, e, e.row, e.col); }
template <class A> void serialize(A& a, MmaLaneData& d) {
    core::archive_members(a, d, d.ok, d.error, d.input, d.a, d.b, d.c, d.d, d.instructions, d.a_owner, d.b_owner, d.c_owner, d.d_owner);
}

}  // namespace gpulab::sim

namespace gpulab::train {

template <class A> void serialize(A& a, Sgd& s) { core::archive_members(a, s, s.learning_rate, s.momentum); }
template <class A> void serialize(A& a, UpdateCounts& c) { core::archive_members(a, c, c.steps, c.nonzero, c.lost, c.below_bf16); }
template <class A> void serialize(A& a, PrecisionRaceConfig& c) {
    core::archive_members(a, c, c.engine, c.batch, c.batches, c.test_images, c.seed, c.sgd);
}
template <class A> void serialize(A& a, PrecisionLane& l) {
    core::archive_members(a, l, l.precision, l.label, l.ran, l.reason, l.batch_loss, l.train_ns, l.test_accuracy, l.updates);
}
template <class A> void serialize(A& a, PrecisionRace& r) {
    core::archive_members(a, r, r.ok, r.error, r.config, r.implementation, r.pictures, r.started_unix_s, r.wall_ns, r.lanes);
}

template <class A> void serialize(A& a, CastCounts& c) {
    core::archive_members(a, c, c.format, c.scale, c.total, c.zero, c.lost, c.subnormal, c.normal, c.overflow);
}
template <class A> void serialize(A& a, PowerHistogram& h) {
    core::archive_members(a, h, h.min_power, h.max_power, h.counts, h.zeros, h.smallest_seen, h.largest_seen);
}
template <class A> void serialize(A& a, ScaledGradientCounts& s) {
    core::archive_members(a, s, s.values, s.max_scale_exp, s.histogram, s.fp16, s.bf16, s.largest_safe_fp16_scale);
}
template <class A> void serialize(A& a, BatchGradients& g) {
    core::archive_members(a, g, g.ok, g.error, g.engine, g.model_spec, g.pictures, g.batch, g.steps_before, g.loss,
                          g.gradients, g.activations);
}

}  // namespace gpulab::train

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
