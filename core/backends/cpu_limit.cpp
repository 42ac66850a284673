// The CPU backends' bandwidth limits: the best of a few plain copies, on warm buffers, timed in
// alternating blocks (see cpu_limit.h for why each choice keeps "fraction of limit" honest).
// Verified by tests/test_cpu_backends.cpp.
#include "cpu_limit.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/cancel.h"
#include "measure/clock.h"
#include "cpu_parallel.h"
#include "runtime/memory.h"
#include "measure/stats.h"
#include "ops/tensor.h"
#include "runtime/thread_pool.h"

namespace gpulab::cpu {

using namespace gpulab::core;

namespace {

// A copy of n floats from src to dst, and the name it goes by in the app.
struct CopyCandidate {
    std::string name;
    std::function<void(const float* src, float* dst, int64_t n)> copy;
};

constexpr std::size_t kKeepBytesEach = std::size_t{32} << 20;  // buffers this small stay for the next call
// Each candidate is timed in blocks of back-to-back runs, as the op is, and the blocks of the
// candidates alternate so that a slow spell of the shared machine hits them alike. Back-to-back
// matters: one run leaves the caches in a state that favours the next run of the same copy (near
// the cache size, a plain-store copy leaves its destination in the cache where a streaming copy
// would have left its source), so every block starts with one untimed run.
// The limit is the best block median: on a shared box another process can hold one of the cores
// for seconds (2-thread copies at 2^20 floats were seen at 160 GB/s, then at 85 GB/s for a while),
// and a limit taken in such a spell would be beaten by an op timed outside it.
constexpr int kBlocks = 3;                     // blocks per candidate
constexpr int kMinPerBlock = 3;                // timed runs per block, at least ...
constexpr int kMaxPerBlock = 50;               // ... and at most
constexpr int64_t kBlockBudgetNs = 4'000'000;  // past kMinPerBlock, stop a block after this long

struct WarmBuffers {
    FloatBuffer src;
    FloatBuffer dst;
};

// The kept pair, and the lock held for a whole measurement: two limits measured at once would
// share the memory bus and each report less than the machine can do.
std::mutex& limit_mutex() {
    static std::mutex m;
    return m;
}

WarmBuffers& kept_buffers() {
    static WarmBuffers b;
    return b;
}

// v = `count` copies of `value`, a piece at a time, throwing Cancelled between pieces when asked.
void fill_unless_stopped(FloatBuffer& v, std::size_t count, float value) {
    constexpr std::size_t kPiece = std::size_t{1} << 20;
    v.clear();
    v.reserve(count);
    while (v.size() < count) {
        throw_if_cancelled();
        v.insert(v.end(), std::min(kPiece, count - v.size()), value);
    }
}

// One timed copy, a 32 MiB piece at a time with the stop request asked before each: a 256 MiB copy
// takes 100-200 ms on a busy machine, and a step left stops within 100 ms (issues 25, 38). The
// pieces stay far above the caches, so the rate is the same as one call's; asking is one load.
void copy_in_pieces(const CopyCandidate& c, const float* src, float* dst, int64_t n) {
    constexpr int64_t kPieceFloats = int64_t{1} << 23;
    for (int64_t at = 0; at < n; at += kPieceFloats) {
        throw_if_cancelled();
        c.copy(src + at, dst + at, std::min(kPieceFloats, n - at));
    }
}

std::string thread_count(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

LimitResult measure_best_copy(std::size_t bytes, const std::vector<CopyCandidate>& candidates) {
    LimitResult l;
    if (bytes == 0) {
        l.error = "an empty array has no copy bandwidth to measure";
        return l;
    }
    const std::size_t floats = (bytes + sizeof(float) - 1) / sizeof(float);
    const std::size_t buffer_bytes = floats * sizeof(float);
    try {
        std::lock_guard<std::mutex> lock(limit_mutex());
        WarmBuffers& kept = kept_buffers();
        WarmBuffers fresh;
        WarmBuffers* buf = &kept;
        if (kept.src.size() != floats || kept.dst.size() != floats) {  // (a fill stopped half-way counts as none)
            kept = WarmBuffers{};  // give the old pair back before asking for a new one
            const Availability fits = check_host_allocation(2 * buffer_bytes);
            if (!fits.ok) {
                l.name = candidates.empty() ? std::string() : candidates.front().name;
                l.error = fits.reason;
                return l;
            }
            if (buffer_bytes > kKeepBytesEach) buf = &fresh;
            // Filling touches every page, so page faults happen here and not in a timed copy. In
            // pieces: two 256 MiB buffers take half a second to fill on a busy machine, and a
            // stopped run does not wait for them (issue 38).
            fill_unless_stopped(buf->src, floats, 1.0f);
            fill_unless_stopped(buf->dst, floats, 0.0f);
        }
        const float* src = buf->src.data();
        float* dst = buf->dst.data();
        const auto n = static_cast<int64_t>(floats);

        const double copied = 2.0 * static_cast<double>(buffer_bytes);  // read + write
        for (int block = 0; block < kBlocks; ++block) {
            for (const CopyCandidate& c : candidates) {
                copy_in_pieces(c, src, dst, n);  // settle (and, the first time, wake the pool)
                std::vector<int64_t> samples;
                const int64_t start = now_ns();
                for (int k = 0; k < kMaxPerBlock; ++k) {
                    if (k >= kMinPerBlock && now_ns() - start > kBlockBudgetNs) break;
                    const int64_t t0 = now_ns();
                    copy_in_pieces(c, src, dst, n);
                    samples.push_back(now_ns() - t0);
                }
                const double rate = gbps(copied, summarize(samples).median_ns);
                if (l.name.empty() || rate > l.gbps) {
                    l.name = c.name;
                    l.gbps = rate;
                }
            }
        }
        l.ok = l.gbps > 0.0;
        if (!l.ok) l.error = "the copy was too fast to time; use a larger size";
    } catch (const Cancelled&) {
        throw;  // the measurement that asked for this limit was stopped: its caller says so
    } catch (const std::exception& e) {
        l.ok = false;
        l.error = std::string("copy limit failed: ") + e.what();
    }
    return l;
}

}  // namespace

LimitResult measure_parallel_copy_limit(std::size_t bytes) {
    const std::string threads = thread_count(parallel_threads());
    // The same streaming-store decision as cpu-parallel's run(), which passes input + output bytes.
    const bool stream = uses_streaming_stores(2 * bytes);
    std::vector<CopyCandidate> candidates;
    candidates.push_back({"memcpy (" + threads + ")", [](const float* src, float* dst, int64_t n) {
                              ThreadPool::shared().parallel_for(n, [src, dst](int64_t begin, int64_t end) {
                                  std::memcpy(dst + begin, src + begin,
                                              static_cast<std::size_t>(end - begin) * sizeof(float));
                              });
                          }});
    candidates.push_back({"copy (" + threads + ", " + std::string(simd_isa()) + (stream ? ", streaming stores)" : ")"),
                          [stream](const float* src, float* dst, int64_t n) {
                              ThreadPool::shared().parallel_for(n, [src, dst, stream](int64_t begin, int64_t end) {
                                  copy_simd(src + begin, dst + begin, end - begin, stream);
                              });
                          }});
    return measure_best_copy(bytes, candidates);
}

LimitResult measure_single_thread_copy_limit(std::size_t bytes) {
    std::vector<CopyCandidate> candidates;
    candidates.push_back({"memcpy (1 thread)", [](const float* src, float* dst, int64_t n) {
                              std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(float));
                          }});
    candidates.push_back({"scalar copy loop (1 thread)", [](const float* src, float* dst, int64_t n) {
                              // volatile keeps the compiler from turning this back into memcpy or
                              // vector code: one float per store, as in cpu-scalar's loop.
                              volatile float* out = dst;
                              for (int64_t i = 0; i < n; ++i) out[i] = src[i];
                          }});
    return measure_best_copy(bytes, candidates);
}

}  // namespace gpulab::cpu
