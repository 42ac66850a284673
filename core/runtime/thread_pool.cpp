// The persistent thread pool behind cpu-parallel (see thread_pool.h for the contract).
// Verified by tests/test_cpu_backends.cpp ("thread pool ..." cases).
#include "thread_pool.h"

#include "thread_priority.h"

#include <algorithm>
#include <chrono>

namespace gpulab::cpu {

namespace {
// Set while a thread is executing chunks, so that a parallel_for called from inside a chunk runs
// inline instead of waiting on a pool whose threads are all busy with the outer call (deadlock).
thread_local bool t_inside_chunk = false;

// Polls `ready` for up to spin_ns; true when it became true. The first polls only use the pause
// hint (cheap, a few microseconds); after that each poll also yields, because on a busy machine
// the thread we wait for may be queued on this very core and a pure spin would keep it off.
template <class Ready>
bool spin_for(int64_t spin_ns, Ready ready) {
    constexpr int kPausePolls = 64;
    for (int i = 0; i < kPausePolls; ++i) {
        if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(spin_ns);
    while (std::chrono::steady_clock::now() < until) {
        if (ready()) return true;
        std::this_thread::yield();
    }
    return ready();
}

struct InsideChunk {
    bool previous = t_inside_chunk;
    InsideChunk() { t_inside_chunk = true; }
    ~InsideChunk() { t_inside_chunk = previous; }
};
}  // namespace

ThreadPool::ThreadPool(int threads) {
    const int workers = std::max(threads, 1) - 1;
    workers_.reserve(static_cast<std::size_t>(workers));
    for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
}

namespace {
std::atomic<int> g_shared_limit{0};        // 0: the hardware's thread count
std::atomic<bool> g_shared_created{false};
}  // namespace

ThreadPool& ThreadPool::shared() {
    static ThreadPool pool([] {
        const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        const int limit = g_shared_limit.load();
        g_shared_created.store(true);
        return limit > 0 ? std::min(limit, hardware) : hardware;
    }());
    return pool;
}

bool ThreadPool::limit_shared(int threads) {
    if (g_shared_created.load()) return false;
    g_shared_limit.store(std::max(threads, 1));
    return true;
}

void ThreadPool::run_chunks() {
    InsideChunk guard;
    for (;;) {
        const int64_t c = next_chunk_.fetch_add(1, std::memory_order_relaxed);
        if (c >= chunk_count_ || failed_.load(std::memory_order_relaxed)) return;
        const int64_t begin = c * chunk_;
        const int64_t end = std::min(n_, begin + chunk_);
        try {
            (*fn_)(begin, end);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!error_) error_ = std::current_exception();
            failed_.store(true, std::memory_order_relaxed);
        }
    }
}

void ThreadPool::set_worker_nice(int nice) { worker_nice_.store(nice, std::memory_order_relaxed); }

void ThreadPool::worker_loop() {
    uint64_t seen = 0;
    int nice_set = 0;
    for (;;) {
        if (!spin_for(kSpinNs, [&] { return generation_.load(std::memory_order_acquire) != seen || stop_.load(); })) {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_.load() || generation_.load(std::memory_order_acquire) != seen; });
        }
        if (stop_.load()) return;
        seen = generation_.load(std::memory_order_acquire);
        if (const int nice = worker_nice_.load(std::memory_order_relaxed); nice != nice_set) {
            set_this_thread_nice(nice);
            nice_set = nice;  // refused (lowering needs privileges): do not ask again every run
        }
        run_chunks();
        if (busy_workers_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard<std::mutex> lock(mutex_);  // pairs with the caller's predicate check
            done_.notify_one();
        }
    }
}

void ThreadPool::parallel_for(int64_t n, const ChunkFn& fn, int64_t chunk) {
    if (n <= 0) return;
    chunk = std::max<int64_t>(chunk, 1);
    // Small ranges and nested calls: waking the workers would cost more than it saves.
    if (workers_.empty() || n <= chunk || t_inside_chunk) {
        InsideChunk guard;
        fn(0, n);
        return;
    }

    std::lock_guard<std::mutex> submit(submit_mutex_);
    fn_ = &fn;
    n_ = n;
    chunk_ = chunk;
    chunk_count_ = (n + chunk - 1) / chunk;
    next_chunk_.store(0, std::memory_order_relaxed);
    failed_.store(false, std::memory_order_relaxed);
    busy_workers_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
    {
        // Under the mutex so that a worker between its predicate check and its sleep cannot miss it.
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = nullptr;
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    run_chunks();

    // Every worker must have left run_chunks() before fn (owned by the caller) goes away.
    if (!spin_for(kSpinNs, [&] { return busy_workers_.load(std::memory_order_acquire) == 0; })) {
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [&] { return busy_workers_.load(std::memory_order_acquire) == 0; });
    }
    fn_ = nullptr;
    std::exception_ptr error;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        error = error_;
        error_ = nullptr;
    }
    if (error) std::rethrow_exception(error);
}

}  // namespace gpulab::cpu
