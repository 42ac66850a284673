// A small persistent thread pool for cpu-parallel: the "all cores" half of the fair CPU opponent
// (SIMD inside each core is the other half, see simd_math.h).
//
// The threads are created once (size = std::thread::hardware_concurrency()) and reused by every
// run, so a measurement never pays thread creation. parallel_for(n, fn) cuts [0, n) into
// contiguous chunks (64 KiB of floats by default: a chunk's input and output stay in L2 while it
// is processed) and the threads, the caller included, take chunks from a shared counter until
// none are left. Idle workers spin for 100 us before sleeping, so runs in a loop do not pay a
// wake-up each. Verified by tests/test_cpu_backends.cpp: every index runs exactly once, for
// sizes around the chunk boundaries, from several calling threads, and nested calls run inline.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpulab::cpu {

// 16384 floats = 64 KiB read + 64 KiB written per chunk.
inline constexpr int64_t kDefaultChunk = 16384;

// Chunk for one streaming pass over `n` elements (activations, the copy they are measured against):
// kDefaultChunk, or 1/16 of a thread's share when that is larger. Every chunk start costs the
// hardware prefetcher a ramp-up, and 64 KiB chunks interleave the threads' streams: at 2^26 floats
// on 2 threads, 64 KiB chunks ran ReLU in 6.9 ms and 4 MiB ones in 5.1 ms (sigmoid 13.5 -> 11.1 ms;
// docs/benchmarks.md). Sixteen chunks per thread still balance a thread that falls behind.
inline int64_t streaming_chunk(int64_t n, int threads) {
    const int64_t share = n / (static_cast<int64_t>(threads < 1 ? 1 : threads) * 16);
    return share > kDefaultChunk ? share : kDefaultChunk;
}

class ThreadPool {
public:
    using ChunkFn = std::function<void(int64_t begin, int64_t end)>;

    // `threads` counts the caller: a pool of size N starts N - 1 workers. Values below 1 mean 1.
    explicit ThreadPool(int threads);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    int size() const { return static_cast<int>(workers_.size()) + 1; }

    // Calls fn(begin, end) for consecutive chunks covering [0, n) exactly once, spread over all
    // threads, and returns when every chunk is done. A range of one chunk or less, or a call made
    // from inside a chunk (nesting), runs inline on the caller. Calls from several threads are
    // served one after another. If fn throws, the remaining chunks are skipped and the first
    // exception is rethrown here.
    void parallel_for(int64_t n, const ChunkFn& fn, int64_t chunk = kDefaultChunk);

    // The process-wide pool, sized to the hardware (or to limit_shared's count), created on first use.
    static ThreadPool& shared();
    // Caps the process-wide pool at `threads` (at least 1). Data-parallel training runs several
    // workers on one machine, each with its share of the cores (core/distributed): a pool per worker
    // as large as the machine would have them all fight over every core. Only before the pool's
    // first use; false (and nothing changes) when it already exists.
    static bool limit_shared(int threads);

    // Every worker sets its own nice value (core/runtime/thread_priority.h) before its next chunk; the
    // calling thread keeps its own. The GUI runs its measurements below the window's priority.
    void set_worker_nice(int nice);

private:
    void worker_loop();
    void run_chunks();

    std::vector<std::thread> workers_;
    std::mutex submit_mutex_;  // one parallel_for at a time

    // Waking a sleeping thread through a condition variable costs tens of microseconds, as long as
    // the whole job for 2^16 floats. So idle workers first spin on generation_ for a short while
    // (back-to-back runs, as in a measurement loop, then start within a microsecond) before they
    // sleep, and the caller spins briefly on busy_workers_ before it sleeps.
    static constexpr int64_t kSpinNs = 100'000;

    std::mutex mutex_;  // guards sleeping/waking and error_
    std::condition_variable wake_;
    std::condition_variable done_;
    std::atomic<uint64_t> generation_{0};  // bumped (release) after the job fields are written
    std::atomic<int> busy_workers_{0};
    std::atomic<bool> stop_{false};
    std::exception_ptr error_;
    // Wanted nice value for the workers; each compares it with what it last set when it wakes.
    std::atomic<int> worker_nice_{0};

    // The current job: written by the submitting thread before the generation changes.
    const ChunkFn* fn_ = nullptr;
    int64_t n_ = 0;
    int64_t chunk_ = 0;
    int64_t chunk_count_ = 0;
    std::atomic<int64_t> next_chunk_{0};
    std::atomic<bool> failed_{false};
};

}  // namespace gpulab::cpu
