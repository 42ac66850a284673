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

#include <algorithm>
#include <cstdint>
#include <istream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "activation_workload.h"
#include "field_count.h"
#include "conv2d_workload.h"
#include "gemm_ladder.h"
#include "latency_sweep.h"
#include "precision_ladder.h"
#include "simd_mimd.h"
#include "tensor_speed.h"

// [SECTION] lengths read from the data are checked before anything is allocated
//
// cereal reads a string's or vector's length and allocates that much before reading the elements,
// so damaged or crafted bytes claiming 10^18 characters would allocate (or, under ASan, abort:
// found by CI's sanitizer run). These loads, more specialised than cereal's for the one archive
// gpulab reads, check each length against the bytes the payload has left (every element takes at
// least one byte) and against 1 GiB of memory before allocating; a length that fails is an error,
// and from_bytes gives nothing back. Everything else is cereal's own.
namespace gpulab::core::archive_detail {

// The stream from_bytes reads and its length, for the checks below (null: no limit known).
inline thread_local std::istream* t_input = nullptr;
inline thread_local std::uint64_t t_input_bytes = 0;
inline constexpr std::uint64_t kMaxDecodedBytes = std::uint64_t{1} << 30;

inline void check_length(std::uint64_t count, std::uint64_t bytes_read_each, std::uint64_t bytes_in_memory_each) {
    std::uint64_t left = ~std::uint64_t{0};
    if (t_input) {
        const std::streamoff at = t_input->tellg();
        left = at < 0 ? 0 : t_input_bytes - static_cast<std::uint64_t>(at);
    }
    if (count > left / std::max<std::uint64_t>(bytes_read_each, 1) ||
        count > kMaxDecodedBytes / std::max<std::uint64_t>(bytes_in_memory_each, 1))
        throw std::runtime_error("a length in the data is larger than the data itself");
}

}  // namespace gpulab::core::archive_detail

namespace cereal {

template <class CharT, class Traits, class Alloc>
void load(PortableBinaryInputArchive& ar, std::basic_string<CharT, Traits, Alloc>& str) {
    size_type size = 0;
    ar(make_size_tag(size));
    gpulab::core::archive_detail::check_length(size, sizeof(CharT), sizeof(CharT));
    str.resize(static_cast<std::size_t>(size));
    ar(binary_data(const_cast<CharT*>(str.data()), static_cast<std::size_t>(size) * sizeof(CharT)));
}

template <class T, class A, std::enable_if_t<!std::is_same_v<T, bool>, int> = 0>
void load(PortableBinaryInputArchive& ar, std::vector<T, A>& vector) {
    size_type size = 0;
    ar(make_size_tag(size));
    if constexpr (std::is_arithmetic_v<T>) {
        gpulab::core::archive_detail::check_length(size, sizeof(T), sizeof(T));
        vector.resize(static_cast<std::size_t>(size));
        ar(binary_data(vector.data(), static_cast<std::size_t>(size) * sizeof(T)));
    } else {
        gpulab::core::archive_detail::check_length(size, 1, sizeof(T));
        vector.resize(static_cast<std::size_t>(size));
        for (auto&& v : vector) ar(v);
    }
}

}  // namespace cereal

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
      r.started_unix_s, r.pictures_remade);
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
    archive_members(a, r, r.backend, r.inputs, r.ran, r.native, r.instruction, r.path, r.time, r.gflops, r.gflops_min, r.gflops_max,
                    r.check_pass, r.worst_error_ratio, r.error, r.source);
}
template <class A> void serialize(A& a, GemmSpeedRun& r) { archive_members(a, r, r.size, r.rows); }
template <class A> void serialize(A& a, GemmRungRow& r) { archive_members(a, r, r.rung, r.speed, r.threads, r.fraction_of_peak); }
template <class A> void serialize(A& a, FmaPeak& p) { archive_members(a, p, p.one_core_gflops, p.all_cores_gflops, p.threads); }
template <class A> void serialize(A& a, GemmLadder& l) { archive_members(a, l, l.size, l.isa, l.peak, l.rows); }

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
    std::istringstream in(bytes);
    // The lengths inside are checked against what is left of `in` (archive_detail above).
    struct Limit {
        explicit Limit(std::istream* s, std::uint64_t n) {
            archive_detail::t_input = s;
            archive_detail::t_input_bytes = n;
        }
        ~Limit() { archive_detail::t_input = nullptr; }
    } limit(&in, bytes.size());
    try {
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
