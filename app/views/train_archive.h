// The training types on disk (views/stored_results.h): what a training run, a race, a batch-size
// sweep, this machine's peaks (the training lesson) and a precision race or a batch's gradients (the
// tensor-core lesson) keep, every member, so either lesson's stored results show at once after
// `gpulab prerun`. Here rather than in core/train because core/workloads/workload_archive.h, which
// both use, sits on the same floor as core/train (docs/architecture.md); the two lessons' folders
// share it from app/views. Round trips are tested in tests/test_result_archive.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "train/evaluation.h"
#include "train/gradient_precision.h"
#include "train/live_log.h"
#include "train/machine_peak.h"
#include "train/precision_race.h"
#include "train/race.h"
#include "workloads/workload_archive.h"

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

// [SECTION] the training lesson

template <class A> void serialize(A& a, CurvePoint& p) {
    core::archive_members(a, p, p.seconds, p.images, p.loss, p.train_accuracy, p.test_accuracy);
}
template <class A> void serialize(A& a, LayerTime& t) { core::archive_members(a, t, t.forward_ns, t.backward_ns); }
template <class A> void serialize(A& a, LaneResult& l) {
    core::archive_members(a, l, l.engine, l.implementation, l.precision, l.ran, l.reason, l.stopped, l.budget_hit, l.points,
                          l.batch_loss, l.images, l.train_ns, l.layer_ns, l.params);
}
template <class A> void serialize(A& a, RaceSummary& s) {
    core::archive_members(a, s, s.fastest_cpu, s.fastest_gpu, s.speedup, s.text);
}
template <class A> void serialize(A& a, BatchTiming& t) {
    core::archive_members(a, t, t.engine, t.batch, t.images, t.ns, t.ran, t.reason);
}
template <class A> void serialize(A& a, Prediction& p) {
    core::archive_members(a, p, p.index, p.truth, p.predicted, p.confidence);
}
// The matrix keeps its cells private: written as its class count and cells, rebuilt (and checked)
// by from_cells.
template <class A> void save(A& a, const ConfusionMatrix& m) { a(m.classes(), m.cells()); }
template <class A> void load(A& a, ConfusionMatrix& m) {
    int classes = 0;
    std::vector<std::int64_t> cells;
    a(classes, cells);
    std::optional<ConfusionMatrix> read = ConfusionMatrix::from_cells(classes, std::move(cells));
    if (!read) throw std::runtime_error("a confusion matrix's cells do not match its classes");
    m = std::move(*read);
}
template <class A> void serialize(A& a, Evaluation& e) { core::archive_members(a, e, e.confusion, e.first); }
template <class A> void serialize(A& a, LivePoint& p) { core::archive_members(a, p, p.seconds, p.loss, p.accuracy); }
template <class A> void serialize(A& a, LiveLane& l) { core::archive_members(a, l, l.engine, l.epochs); }
template <class A> void serialize(A& a, LiveSnapshot& s) {
    core::archive_members(a, s, s.earlier, s.engine, s.batches, s.epochs, s.images, s.images_per_second, s.last_batch_ns,
                          s.fraction, s.version);
}
template <class A> void serialize(A& a, MeasuredPeaks& p) {
    core::archive_members(a, p, p.ok, p.flops, p.threads, p.isa, p.lanes, p.bytes_per_s, p.copy_name, p.copy_bytes,
                          p.took_ns, p.error);
}

}  // namespace gpulab::train
