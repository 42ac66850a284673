// The latency lesson's measurement on disk (views/stored_results.h): the sweep and the GPU probes'
// results, every member; the core types' serialize functions are in workloads/workload_archive.h.
#pragma once

#include "latency_view.h"
#include "probes/latency_probe.h"
#include "workloads/workload_archive.h"

namespace gpulab::gpu {

template <class A> void serialize(A& a, LaunchCosts& c) {
    core::archive_members(a, c, c.ok, c.error, c.enqueue, c.launch_and_sync, c.graph_kernels, c.separate_per_kernel, c.graph_per_kernel);
}
template <class A> void serialize(A& a, CopyBandwidth& c) {
    core::archive_members(a, c, c.ok, c.error, c.bytes, c.h2d_pinned_gbps, c.d2h_pinned_gbps, c.h2d_pageable_gbps, c.d2h_pageable_gbps);
}
template <class A> void serialize(A& a, ColdStart& c) { core::archive_members(a, c, c.ok, c.error, c.context_ns, c.driver_init_ns); }

}  // namespace gpulab::gpu

namespace gpulab::app {

template <class A> void serialize(A& a, LatencyMeasurement& m) { core::archive_members(a, m, m.config, m.sweep, m.launch, m.copy, m.cold); }

}  // namespace gpulab::app
