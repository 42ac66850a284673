// The core's measurement types written to and read from bytes, for the results store on disk
// (io/result_store.h, issue 25): cereal's portable binary archive, one `serialize` in each type's
// namespace so cereal finds it. Every member is listed, and archive_members checks it at compile
// time: a member left out would come back from disk as its default and show a wrong number.
// Round trips are tested in tests/test_result_archive.cpp. Change a type, and bump the payload
// format of the views that store it (their back_with_stored_results calls).
#pragma once

#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/array.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>

#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "activation_workload.h"
#include "field_count.h"
#include "conv2d_workload.h"
#include "latency_sweep.h"
#include "precision_ladder.h"
#include "simd_mimd.h"
#include "tensor_speed.h"

namespace gpulab::core {

// Every member of `value`, in order, into or out of the archive. Does not compile when the list is
// shorter or longer than the type's members (field_count.h): a member added to a measurement type
// must be added to its serialize function too (and the view's payload format bumped).
template <class A, class T, class... Members>
void archive_members(A& a, const T&, Members&... members) {
    static_assert(field_count<T>() == sizeof...(Members), "a serialize function must list every member of its type");
    a(members...);
}

// A tensor by hand, not through cereal's vector: the element count is checked against the shape and
// a cap before anything is allocated, so a damaged or crafted file cannot ask for gigabytes.
inline constexpr std::uint64_t kMaxArchivedTensorElements = std::uint64_t{1} << 24;  // 64 MiB of floats
static_assert(field_count<Tensor>() == 2, "Tensor's save and load must write every member");
template <class A> void save(A& a, const Tensor& t) {
    const auto n = static_cast<std::uint64_t>(t.data.size());
    a(t.shape, n, cereal::binary_data(t.data.data(), n * sizeof(float)));
}
template <class A> void load(A& a, Tensor& t) {
    std::uint64_t n = 0;
    a(t.shape, n);
    std::uint64_t product = t.shape.empty() ? 0 : 1;
    for (const std::int64_t d : t.shape) {
        if (d < 0 || (d > 0 && product > kMaxArchivedTensorElements / static_cast<std::uint64_t>(d)))
            throw std::runtime_error("a tensor's shape is out of range");
        product *= static_cast<std::uint64_t>(d);
    }
    if (n != product || n > kMaxArchivedTensorElements) throw std::runtime_error("a tensor's size does not match its shape");
    t.data.resize(static_cast<std::size_t>(n));
    a(cereal::binary_data(t.data.data(), n * sizeof(float)));
}
template <class A> void serialize(A& a, Stats& s) { archive_members(a, s, s.samples, s.min_ns, s.p25_ns, s.median_ns, s.p75_ns, s.max_ns, s.mean_ns); }
template <class A> void serialize(A& a, PhaseTimes& p) { archive_members(a, p, p.upload_ns, p.compute_ns, p.download_ns, p.launch_ns); }
template <class A> void serialize(A& a, Availability& v) { archive_members(a, v, v.ok, v.reason); }
template <class A> void serialize(A& a, LimitResult& l) { archive_members(a, l, l.ok, l.name, l.gbps, l.error); }
template <class A> void serialize(A& a, Comparison& c) {
    archive_members(a, c, c.pass, c.max_abs_error, c.max_rel_error, c.worst_index, c.mismatches, c.verdict);
}
template <class A> void serialize(A& a, OpDesc& o) { archive_members(a, o, o.kind, o.activation, o.leaky_alpha); }

template <class A> void serialize(A& a, BackendReport& r) {
    archive_members(a, r, r.backend, r.kind, r.availability, r.ran, r.error, r.total, r.upload, r.compute, r.download, r.samples_ns,
      r.phases, r.gbps, r.gflops, r.implementation, r.gbps_with_transfers, r.limit, r.fraction_of_limit, r.check,
      r.moved_bytes, r.unique_bytes);
}

template <class A> void serialize(A& a, ActivationParams& p) { archive_members(a, p, p.activation, p.leaky_alpha, p.elements, p.image_path, p.seed); }
template <class A> void serialize(A& a, ActivationRun& r) {
    archive_members(a, r, r.params, r.op, r.ok, r.error, r.input, r.reference_output, r.simulated_output, r.simulated_backend, r.reports,
      r.started_unix_s);
}

template <class A> void serialize(A& a, Conv2dParams& p) {
    archive_members(a, p, p.filter, p.filter_path, p.custom_filter, p.kernel, p.padding, p.stride, p.image_path, p.height, p.width,
      p.per_channel, p.layer_mode, p.batch, p.channels, p.filters, p.seed);
}
template <class A> void serialize(A& a, Conv2dDesc& d) {
    archive_members(a, d, d.batch, d.channels, d.height, d.width, d.filters, d.kernel, d.padding, d.stride);
}
template <class A> void serialize(A& a, Conv2dRun& r) {
    archive_members(a, r, r.params, r.desc, r.ok, r.error, r.input, r.filters, r.reference_output, r.simulated_output, r.simulated_backend,
      r.reports, r.reference_backend, r.started_unix_s);
}

template <class A> void serialize(A& a, SweepConfig& c) {
    archive_members(a, c, c.min_exp, c.max_exp, c.activation, c.time_per_point_ns, c.min_samples_small, c.min_samples_large, c.memory_budget);
}
template <class A> void serialize(A& a, SweepPlan& p) { archive_members(a, p, p.sizes, p.capped); }
template <class A> void serialize(A& a, SweepCell& c) {
    archive_members(a, c, c.ran, c.why_not, c.total, c.upload, c.compute, c.download, c.matches_reference);
}
template <class A> void serialize(A& a, SweepResult& r) {
    archive_members(a, r, r.ok, r.error, r.activation, r.plan, r.backends, r.kinds, r.cells, r.started_unix_s);
}

template <class A> void serialize(A& a, SimdComparison& c) {
    archive_members(a, c, c.ok, c.error, c.isa, c.lanes, c.elements, c.scalar, c.simd, c.speedup, c.results_equal);
}
template <class A> void serialize(A& a, TimelineSpan& s) { archive_members(a, s, s.thread, s.cpu, s.task, s.start_ns, s.end_ns); }
template <class A> void serialize(A& a, MimdTimeline& t) {
    archive_members(a, t, t.ok, t.error, t.threads, t.t0_ns, t.wall_ns, t.sequential_ns, t.spans);
}
template <class A> void serialize(A& a, WarpStep& s) { archive_members(a, s, s.path, s.active); }

template <class A> void serialize(A& a, DotSweepConfig& c) { archive_members(a, c, c.min_k, c.max_k, c.trials, c.seed); }
template <class A> void serialize(A& a, DotSweepLine& l) { archive_members(a, l, l.inputs, l.accumulate, l.error); }
template <class A> void serialize(A& a, GemmSpeedRow& r) {
    archive_members(a, r, r.backend, r.inputs, r.ran, r.native, r.path, r.time, r.gflops, r.gflops_min, r.gflops_max,
                    r.check_pass, r.worst_error_ratio, r.error);
}
template <class A> void serialize(A& a, GemmSpeedRun& r) { archive_members(a, r, r.size, r.rows); }

template <class A> void serialize(A& a, DotSweep& s) { archive_members(a, s, s.ok, s.error, s.config, s.ks, s.lines, s.wall_ns); }

// A result as bytes, and back. from_bytes gives nullptr for bytes that do not read back whole (a
// file from another payload format, cut short or damaged): the caller then measures again.
template <class T> std::string to_bytes(const T& value) {
    std::ostringstream out;
    {
        cereal::PortableBinaryOutputArchive archive(out);
        archive(const_cast<T&>(value));  // serialize() reads here; cereal's one function does both ways
    }
    return std::move(out).str();
}

template <class T> std::shared_ptr<T> from_bytes(const std::string& bytes) {
    try {
        std::istringstream in(bytes);
        auto value = std::make_shared<T>();
        {
            cereal::PortableBinaryInputArchive archive(in);
            archive(*value);
        }
        if (in.peek() != std::char_traits<char>::eof()) return nullptr;  // more bytes than the type: not this format
        return value;
    } catch (const std::exception&) {
        return nullptr;
    }
}

}  // namespace gpulab::core
