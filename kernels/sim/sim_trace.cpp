// Warp requests from a block trace: see sim_trace.h. The pairing (the k-th access of each lane in
// one barrier interval) and the costs are those of flush_bank_log and flush_global_log in
// sim_runtime.cpp, here kept per request so a view can show which lanes cost what.
#include "sim_trace.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gpulab::sim {

std::vector<WarpRequest> warp_requests(const Trace& trace) {
    // A lane's accesses of one kind (space, load or store, size) are numbered in its order; the
    // lanes' n-th accesses of a kind in one interval are one request. Numbering per kind keeps a
    // scalar head (threads 0..2, 4 bytes) apart from the float4 body every lane loads after it.
    using Kind = std::tuple<int, int, int, bool, uint32_t>;        // thread, interval, space, store, bytes
    using Key = std::tuple<int, int, int, bool, uint32_t, int>;    // interval, warp, space, store, bytes, n
    std::map<Kind, int> seen;
    std::map<Key, WarpRequest> by_key;
    std::map<Key, std::size_t> first_event;
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        const TraceEvent& e = trace.events[i];
        const int warp = e.thread / DeviceLimits::kWarpSize;
        const int nth = seen[{e.thread, e.interval, static_cast<int>(e.space), e.store, e.bytes}]++;
        const Key key{e.interval, warp, static_cast<int>(e.space), e.store, e.bytes, nth};
        WarpRequest& r = by_key[key];
        if (r.lanes.empty()) {
            r.interval = e.interval;
            r.warp = warp;
            r.seq = nth;
            r.space = e.space;
            r.store = e.store;
            r.region = e.region;
            first_event[key] = i;
        }
        r.lanes.push_back(e.thread % DeviceLimits::kWarpSize);
        r.offsets.push_back(e.offset);
        r.bytes.push_back(e.bytes);
    }
    std::vector<WarpRequest> out;
    out.reserve(by_key.size());
    for (auto& [key, r] : by_key) {
        if (r.space == Space::Shared) {
            std::vector<int64_t> words;
            for (std::size_t i = 0; i < r.offsets.size(); ++i) words.push_back(r.offsets[i] / 4);
            std::sort(words.begin(), words.end());
            words.erase(std::unique(words.begin(), words.end()), words.end());
            int per_bank[DeviceLimits::kBanks] = {};
            for (int64_t w : words) r.passes = std::max(r.passes, ++per_bank[w % DeviceLimits::kBanks]);
        } else {
            std::vector<int64_t> sectors, segments;
            for (std::size_t i = 0; i < r.offsets.size(); ++i) {
                const int64_t first = r.offsets[i], last = r.offsets[i] + r.bytes[i] - 1;
                for (int64_t s = first / 32; s <= last / 32; ++s) sectors.push_back(s);
                for (int64_t s = first / 128; s <= last / 128; ++s) segments.push_back(s);
            }
            std::sort(sectors.begin(), sectors.end());
            std::sort(segments.begin(), segments.end());
            r.sectors = static_cast<int>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
            r.segments = static_cast<int>(std::unique(segments.begin(), segments.end()) - segments.begin());
        }
        r.seq = static_cast<int>(first_event[key]);  // for the ordering below
        out.push_back(std::move(r));
    }
    // In the order the block ran them: interval, warp, then the first access of each request.
    std::sort(out.begin(), out.end(), [](const WarpRequest& a, const WarpRequest& b) {
        return std::tie(a.interval, a.warp, a.seq) < std::tie(b.interval, b.warp, b.seq);
    });
    return out;
}

RequestTotals totals(const std::vector<WarpRequest>& requests, Space space, int interval) {
    RequestTotals t;
    for (const WarpRequest& r : requests) {
        if (r.space != space || (interval >= 0 && r.interval != interval)) continue;
        ++t.requests;
        t.passes += r.passes;
        t.sectors += r.sectors;
        t.segments += r.segments;
        for (uint32_t b : r.bytes) t.bytes += b;
    }
    return t;
}

}  // namespace gpulab::sim
