// What a recorded block trace (sim_runtime.h, Options::trace) says about memory: the accesses of a
// warp's lanes paired into warp requests, as the simulator's counters pair them, with the cost of
// each from the real addresses: shared-memory bank passes, global 32-byte sectors and 128-byte
// segments. Plain C++; the lesson views draw from it and tests/test_sim.cpp checks it against the
// simulator's own counters.
#pragma once

#include <cstdint>
#include <vector>

#include "sim_runtime.h"

namespace gpulab::sim {

struct WarpRequest {
    int interval = 0;  // barrier interval
    int warp = 0;      // warp index in the block (linear thread / 32)
    int seq = 0;       // position in the trace of the request's first access (execution order)
    Space space = Space::Global;
    bool store = false;            // the first lane's access (a request may mix only in odd kernels)
    int region = -1;               // the first lane's buffer (global)
    std::vector<int> lanes;        // 0..31, in lane order
    std::vector<int64_t> offsets;  // byte offset per lane, same order
    std::vector<uint32_t> bytes;   // bytes per lane
    int passes = 0;    // shared: the most distinct 4-byte words in one of the 32 banks (1: no conflict)
    int sectors = 0;   // global: distinct 32-byte sectors touched
    int segments = 0;  // global: distinct 128-byte segments touched
};

// Every warp request of the trace, ordered by interval, warp, then execution order. The lanes'
// n-th accesses of one kind (space, load/store, size) in an interval form one request, so a scalar
// head some lanes run is not merged with the float4 loads that follow (the simulator's counters pair
// plain k-th accesses; the two agree for kernels without divergent memory paths).
std::vector<WarpRequest> warp_requests(const Trace& trace);

// Totals over requests of one space (and, when `interval` >= 0, one interval).
struct RequestTotals {
    int64_t requests = 0, passes = 0, sectors = 0, segments = 0, bytes = 0;
};
RequestTotals totals(const std::vector<WarpRequest>& requests, Space space, int interval = -1);

}  // namespace gpulab::sim
