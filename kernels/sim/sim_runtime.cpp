// The SIMT simulator's scheduler, barrier, shared memory and checks (see sim_runtime.h for the
// model). Fibers are Boost.Context's `fiber` on fixed-size stacks that each OS thread maps once and
// reuses: creating a fiber is then a few pointer moves instead of an mmap, which on the dev box is
// the difference between ~55 ms and ~1.1 s for the 262,144 threads of a 512x512 convolution. Each
// stack has a guard page below it, so a kernel whose locals overflow its stack stops the program
// with a sentence instead of overwriting another CUDA thread's stack (Boost's own pooled stacks
// have no guard page, and its protected ones cost an mmap per fiber).
#include "sim_runtime.h"

#include <boost/context/fiber.hpp>
#include <boost/context/stack_context.hpp>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

#include "runtime/cancel.h"
#include "runtime/thread_pool.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace gpulab::sim {

namespace bctx = boost::context;

namespace {

// A kernel's frames are small; the deepest use is throwing a Fault (the unwinder) from inside a
// check. AddressSanitizer's redzones need more.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kStackBytes = 64 * 1024;
#else
constexpr std::size_t kStackBytes = 16 * 1024;
#endif

// [SECTION] AddressSanitizer and fibers
// ASan must be told when execution moves to another stack, and a pooled stack must lose the stale
// redzones its previous fiber left; otherwise an exception thrown on a fiber (every check ends
// that way) is reported as a stack overflow. Without ASan these compile to nothing.
struct StackBounds {
    const void* bottom = nullptr;
    std::size_t size = 0;
};
#if defined(__SANITIZE_ADDRESS__)
void unpoison(const bctx::stack_context& sc) {
    ASAN_UNPOISON_MEMORY_REGION(static_cast<char*>(sc.sp) - sc.size, sc.size);
}
// Before a switch: `save` keeps this stack's fake frames (nullptr when the stack ends for good).
void leaving(void** save, const StackBounds& to) { __sanitizer_start_switch_fiber(save, to.bottom, to.size); }
// After a switch: `from` receives the stack we came from (where known).
void arrived(void* save, StackBounds* from) {
    __sanitizer_finish_switch_fiber(save, from != nullptr ? &from->bottom : nullptr,
                                    from != nullptr ? &from->size : nullptr);
}
#else
void unpoison(const bctx::stack_context&) {}
void leaving(void**, const StackBounds&) {}
void arrived(void*, StackBounds*) {}
#endif

// [SECTION] fiber stacks with guard pages

std::size_t page_bytes() {
    static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    return page;
}

// The stacks of one OS thread's fibers: each kStackBytes with an inaccessible page below it (stacks
// grow down), mapped on first need and reused, unmapped when the thread ends. Unpoisons
// each stack it hands out or takes back (ASan), and remembers the last one so the scheduler knows
// each fiber's bounds.
class StackPool {
public:
    explicit StackPool(StackBounds* last) : last_(last) {}
    StackPool(const StackPool&) = delete;
    StackPool& operator=(const StackPool&) = delete;
    ~StackPool() {
        for (std::byte* m : mapped_) munmap(m, page_bytes() + kStackBytes);
    }
    bctx::stack_context allocate() {
        if (free_.empty()) map_one();
        std::byte* guard = free_.back();
        free_.pop_back();
        bctx::stack_context sc;
        sc.size = kStackBytes;
        sc.sp = guard + page_bytes() + kStackBytes;
        unpoison(sc);
        *last_ = {static_cast<char*>(sc.sp) - sc.size, sc.size};
        return sc;
    }
    void deallocate(bctx::stack_context& sc) noexcept {
        unpoison(sc);
        free_.push_back(static_cast<std::byte*>(sc.sp) - kStackBytes - page_bytes());
    }
    // Whether `addr` lies in one of this thread's guard pages (read by the overflow handler).
    bool in_guard(const void* addr) const {
        const auto* a = static_cast<const std::byte*>(addr);
        for (const std::byte* m : mapped_)
            if (a >= m && a < m + page_bytes()) return true;
        return false;
    }

private:
    void map_one() {
        void* m = mmap(nullptr, page_bytes() + kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        if (mprotect(m, page_bytes(), PROT_NONE) != 0) {
            munmap(m, page_bytes() + kStackBytes);
            throw std::bad_alloc();
        }
        mapped_.push_back(static_cast<std::byte*>(m));
        free_.push_back(static_cast<std::byte*>(m));
    }
    std::vector<std::byte*> mapped_;  // every stack's guard page (the mapping's start)
    std::vector<std::byte*> free_;
    StackBounds* last_;
};

// What Boost.Context keeps in each fiber: a copyable handle to the OS thread's pool.
class FiberStacks {
public:
    explicit FiberStacks(StackPool* pool) : pool_(pool) {}
    bctx::stack_context allocate() { return pool_->allocate(); }
    void deallocate(bctx::stack_context& sc) noexcept { pool_->deallocate(sc); }

private:
    StackPool* pool_;
};

// Appends rather than `"(" + std::to_string(...)`, which trips GCC 12's false -Wrestrict warning.
std::string u3(const U3& v) {
    std::string s = "(";
    s.append(std::to_string(v.x)).append(",").append(std::to_string(v.y)).append(",");
    return s.append(std::to_string(v.z)).append(")");
}

struct LaunchState {
    std::string name;
    LaunchConfig cfg;
    Options opt;
    std::atomic<bool> failed{false};
    std::mutex mutex;
    std::string error;
    std::atomic<int64_t> block_barriers{0};
    std::atomic<int64_t> requests{0};
    std::atomic<int64_t> wavefronts{0};
    std::atomic<int64_t> global_requests{0};
    std::atomic<int64_t> global_sectors{0};
    std::atomic<int64_t> global_bytes{0};

    void fail(const std::string& message) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failed.load()) {
            error = message;
            failed.store(true);
        }
    }
};

struct ThreadCtx {
    Builtins b;
    int tid = 0;
    bctx::fiber f;
    bctx::fiber sink;  // the scheduler, while this thread runs
    enum class Wait { None, Barrier, Warp };
    bool started = false, done = false;
    Wait wait = Wait::None;
    int barrier_line = 0;
    // __syncthreads_count's predicate (0 or 1; 0 at a plain __syncthreads), and the block's count
    // of nonzero predicates once the barrier completes.
    int barrier_predicate = 0, barrier_count = 0;
    // The warp operation this thread waits at (wait == Warp), and its result.
    WarpOp op = WarpOp::SyncWarp;
    const char* op_name = "";
    const void* op_site = nullptr;  // detail::t_access_site at the call (a student's kernel's line)
    unsigned op_mask = 0;
    uint64_t op_value = 0, op_result = 0;
    int op_arg = 0, op_width = 32;
    const WarpCollective* collective = nullptr;  // op == Collective: the instruction and this lane's operands
    void* operands = nullptr;
    uint32_t warp_syncs = 0;  // __syncwarp() calls completed: orders shared accesses within the warp
    StackBounds stack;        // this fiber's stack (for ASan's switch annotations)
    void* fake_stack = nullptr;
    std::vector<uint32_t> bank_log;  // shared word of each access in the current interval
    struct GlobalAccess {
        std::uintptr_t addr;
        uint32_t bytes;
    };
    std::vector<GlobalAccess> global_log;  // global accesses in the current interval
    int32_t shared_seq = 0, global_seq = 0;  // accesses so far in this interval (traced block only)
};

// Per 4-byte shared word: who wrote and who read it in the current interval (epoch).
struct Shadow {
    uint32_t epoch = 0;
    int32_t writer = -1;
    int32_t reader = -1;  // the first reader
    bool many_readers = false;
    int32_t readers_warp = -1;                    // the warp of every reader, or -1 when they differ
    uint32_t writer_syncs = 0, reader_syncs = 0;  // warp_syncs at the write, the latest of the reads
    const void* writer_site = nullptr;            // detail::t_access_site of the write and first read
    const void* reader_site = nullptr;
};

struct alignas(256) SharedChunk {
    std::byte bytes[256];
};

// One per OS thread: runs the blocks that thread takes, one at a time, reusing its storage.
struct BlockRunner {
    LaunchState* launch = nullptr;
    std::vector<ThreadCtx> threads;
    // The block's shared memory: the dynamic part from 0, then each static array in the order the
    // block first declared them (GPULAB_STATIC_SHARED). Room for the 48 KiB a GPU allows.
    std::vector<SharedChunk> shared = std::vector<SharedChunk>(DeviceLimits::kMaxSharedBytes / sizeof(SharedChunk));
    std::byte* shared_base = nullptr;  // shared.front() or Options::shared_window
    std::size_t shared_bytes = 0;    // in use: dynamic plus the static arrays declared so far
    std::size_t dynamic_bytes = 0;
    std::vector<std::pair<const void*, std::size_t>> static_arrays;  // declaration site, offset
    std::vector<Shadow> shadow;
    uint32_t epoch = 0;  // bumped per block and per barrier, so the shadow never needs clearing
    int interval = 0;    // barriers crossed so far in this block
    U3 block_idx;
    Trace* trace = nullptr;   // set while the traced block runs (Options::trace)
    bool abandoning = false;  // resumed fibers throw Abandon from the barrier they wait at
    StackBounds scheduler_stack;  // the OS thread's stack, learned on the first switch into a fiber
    StackBounds last_stack;
    void* scheduler_fake_stack = nullptr;
    StackPool stack_pool{&last_stack};
    FiberStacks stacks{&stack_pool};
};

thread_local BlockRunner* t_block = nullptr;
thread_local ThreadCtx* t_thread = nullptr;

// [SECTION] a stack overflow, said in one sentence
// A fault on a guard page means the running CUDA thread needed more than its stack. The handler
// runs on this OS thread's alternate signal stack (the fiber's is used up), writes one sentence
// naming the kernel, block and thread, and lets the fault end the process as it would have: a
// student's kernel runs in a child process, whose parent turns its end into a message. Other
// faults go to whatever handled SIGSEGV before. Not under AddressSanitizer, which reports stack
// overflows itself. Large frames probe every page (-fstack-clash-protection, kernels/CMakeLists.txt),
// so an array larger than the guard page cannot jump over it.
#if !defined(__SANITIZE_ADDRESS__)
struct sigaction g_previous_segv;

void append_text(char*& out, const char* end, const char* text) {
    while (*text != '\0' && out < end) *out++ = *text++;
}
void append_u3(char*& out, const char* end, const U3& v) {
    const unsigned parts[3] = {v.x, v.y, v.z};
    append_text(out, end, "(");
    for (int i = 0; i < 3; ++i) {
        char digits[12];
        int n = 0;
        unsigned x = parts[i];
        do {
            digits[n++] = static_cast<char>('0' + x % 10);
            x /= 10;
        } while (x != 0 && n < 11);
        while (n > 0 && out < end) *out++ = digits[--n];
        append_text(out, end, i < 2 ? "," : ")");
    }
}

void on_segv(int sig, siginfo_t* info, void* context) {
    if (t_block != nullptr && t_thread != nullptr && t_block->stack_pool.in_guard(info->si_addr)) {
        char line[640];
        char* out = line;
        const char* end = line + sizeof line - 1;
        append_text(out, end, "gpulab: the simulated kernel ");
        append_text(out, end, t_block->launch->name.c_str());
        append_text(out, end, ": thread ");
        append_u3(out, end, t_thread->b.thread_idx);
        append_text(out, end, " of block ");
        append_u3(out, end, t_block->block_idx);
        append_text(out, end,
                     " needed more than its stack (a large local array, or deep recursion): the simulator stops "
                     "the program here. On a GPU a thread's stack is small too: keep large arrays in global or "
                     "shared memory.\n");
        [[maybe_unused]] const ssize_t w = write(STDERR_FILENO, line, static_cast<std::size_t>(out - line));
        // A handler from before (gpulab-kernel-runner's) gets the fault too: it reports where the
        // thread was, so the overflow is said with its source line.
        if ((g_previous_segv.sa_flags & SA_SIGINFO) != 0 && g_previous_segv.sa_sigaction != nullptr) {
            g_previous_segv.sa_sigaction(sig, info, context);
        }
        signal(SIGSEGV, SIG_DFL);  // returning re-runs the faulting access, which now ends the process
        return;
    }
    if ((g_previous_segv.sa_flags & SA_SIGINFO) != 0 && g_previous_segv.sa_sigaction != nullptr) {
        g_previous_segv.sa_sigaction(sig, info, context);
    } else if (g_previous_segv.sa_handler != SIG_DFL && g_previous_segv.sa_handler != SIG_IGN) {
        g_previous_segv.sa_handler(sig);
    } else {
        signal(SIGSEGV, SIG_DFL);
    }
}

// Before each launch: the handler, unless it is already the one (a test framework may have put its
// own in front since, which then gets the faults that are not ours); once per OS thread that runs
// blocks: its alternate signal stack.
void prepare_overflow_report() {
    const auto ours = [] {
        struct sigaction now {};
        sigaction(SIGSEGV, nullptr, &now);
        return (now.sa_flags & SA_SIGINFO) != 0 && now.sa_sigaction == on_segv;
    };
    if (!ours()) {
        static std::mutex installing;
        std::lock_guard<std::mutex> lock(installing);
        if (!ours()) {
            struct sigaction sa {};
            sa.sa_sigaction = on_segv;
            sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGSEGV, &sa, &g_previous_segv);
        }
    }
    thread_local std::unique_ptr<char[]> alternate;
    if (!alternate) {
        constexpr std::size_t kBytes = 64 * 1024;
        alternate = std::make_unique<char[]>(kBytes);
        stack_t ss{};
        ss.ss_sp = alternate.get();
        ss.ss_size = kBytes;
        sigaltstack(&ss, nullptr);
    }
}
#else
void prepare_overflow_report() {}
#endif

std::string where_now() {
    if (t_block == nullptr || t_thread == nullptr) return "outside any kernel";
    return "in " + t_block->launch->name + ", thread " + u3(t_thread->b.thread_idx) + " of block " +
           u3(t_block->block_idx);
}

// "0-127, 200, 202-255"
std::string ranges(const std::vector<int>& ids) {
    std::string s;
    for (std::size_t i = 0; i < ids.size();) {
        std::size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
        if (!s.empty()) s += ", ";
        s += std::to_string(ids[i]);
        if (j > i) s.append("-").append(std::to_string(ids[j]));
        i = j + 1;
    }
    return s;
}

std::string thread_label(const BlockRunner& b, int tid) {
    return "thread " + u3(b.threads[static_cast<std::size_t>(tid)].b.thread_idx);
}

std::string site_token(const void* site) {
    if (site == nullptr) return "";
    char text[48];
    std::snprintf(text, sizeof text, " {{site:%p}}", site);
    return text;
}

[[noreturn]] void race(const BlockRunner& b, std::size_t word, const char* now, int other, const char* then,
                       const void* other_site) {
    const LaunchState& l = *b.launch;
    throw detail::Fault{"shared-memory race in " + l.name + ", block " + u3(b.block_idx) + ": " +
                        thread_label(b, t_thread->tid) + site_token(detail::t_access_site) + " " + now +
                        " shared bytes " + std::to_string(word * 4) + "-" + std::to_string(word * 4 + 3) + " that " +
                        (other >= 0 ? thread_label(b, other) : std::string("another thread")) +
                        site_token(other_site) + " " + then +
                        " in the same barrier interval (after barrier " + std::to_string(b.interval) +
                        "), so the result depends on which thread runs first; a __syncthreads() between the two "
                        "accesses would order them"};
}

// The k-th shared access of every lane of a warp is one request; its cost is the largest number
// of distinct words that share a bank.
void flush_bank_log(BlockRunner& b, int n) {
    int64_t requests = 0, wavefronts = 0;
    for (int w0 = 0; w0 < n; w0 += DeviceLimits::kWarpSize) {
        const int w1 = std::min(n, w0 + DeviceLimits::kWarpSize);
        std::size_t longest = 0;
        for (int t = w0; t < w1; ++t)
            longest = std::max(longest, b.threads[static_cast<std::size_t>(t)].bank_log.size());
        for (std::size_t k = 0; k < longest; ++k) {
            uint32_t words[DeviceLimits::kWarpSize];
            int count = 0;
            for (int t = w0; t < w1; ++t) {
                const auto& log = b.threads[static_cast<std::size_t>(t)].bank_log;
                if (k < log.size()) words[count++] = log[k];
            }
            std::sort(words, words + count);
            const int distinct = static_cast<int>(std::unique(words, words + count) - words);
            int per_bank[DeviceLimits::kBanks] = {};
            int worst = 0;
            for (int i = 0; i < distinct; ++i) worst = std::max(worst, ++per_bank[words[i] % DeviceLimits::kBanks]);
            ++requests;
            wavefronts += worst;
        }
        for (int t = w0; t < w1; ++t) b.threads[static_cast<std::size_t>(t)].bank_log.clear();
    }
    b.launch->requests += requests;
    b.launch->wavefronts += wavefronts;
}

// The k-th global access of every lane of a warp is one request; it moves the distinct 32-byte
// sectors its lanes' bytes fall in.
void flush_global_log(BlockRunner& b, int n) {
    int64_t requests = 0, sectors = 0, bytes = 0;
    for (int w0 = 0; w0 < n; w0 += DeviceLimits::kWarpSize) {
        const int w1 = std::min(n, w0 + DeviceLimits::kWarpSize);
        std::size_t longest = 0;
        for (int t = w0; t < w1; ++t) {
            longest = std::max(longest, b.threads[static_cast<std::size_t>(t)].global_log.size());
        }
        std::vector<std::uintptr_t> touched;
        for (std::size_t k = 0; k < longest; ++k) {
            touched.clear();
            for (int t = w0; t < w1; ++t) {
                const auto& log = b.threads[static_cast<std::size_t>(t)].global_log;
                if (k >= log.size()) continue;
                bytes += log[k].bytes;
                for (std::uintptr_t s = log[k].addr / 32; s <= (log[k].addr + log[k].bytes - 1) / 32; ++s) {
                    touched.push_back(s);
                }
            }
            std::sort(touched.begin(), touched.end());
            sectors += std::unique(touched.begin(), touched.end()) - touched.begin();
            ++requests;
        }
        for (int t = w0; t < w1; ++t) b.threads[static_cast<std::size_t>(t)].global_log.clear();
    }
    b.launch->global_requests += requests;
    b.launch->global_sectors += sectors;
    b.launch->global_bytes += bytes;
}

std::string hex(unsigned v) {
    static const char* digits = "0123456789abcdef";
    std::string s = "0x";
    for (int i = 28; i >= 0; i -= 4) s += digits[(v >> i) & 15];
    return s;
}

// After a pass every running thread waits somewhere. Completes the warp operations whose lanes have
// all arrived (sets their results, makes them runnable); returns whether any did. A lane of a
// mask that cannot arrive any more is an error (`error` set).
bool resolve_warp_ops(BlockRunner& b, int n, std::string& error) {
    using Wait = ThreadCtx::Wait;
    bool released = false;
    const std::string where = "warp operation in " + b.launch->name + ", block " + u3(b.block_idx) + ", warp ";
    for (int w0 = 0; w0 < n; w0 += DeviceLimits::kWarpSize) {
        const int lanes = std::min(n - w0, DeviceLimits::kWarpSize);
        const auto lane_ctx = [&](int lane) -> ThreadCtx& { return b.threads[static_cast<std::size_t>(w0 + lane)]; };
        for (int a = 0; a < lanes; ++a) {
            ThreadCtx& first = lane_ctx(a);
            if (first.done || first.wait != Wait::Warp) continue;
            const unsigned mask = first.op_mask;
            const std::string warp = where + std::to_string(w0 / DeviceLimits::kWarpSize) + ": lane " +
                                     std::to_string(a) + " waits at " + first.op_name + site_token(first.op_site) +
                                     " with mask " + hex(mask) +
                                     ", but lane ";
            // CUDA's rule: the operation waits for the non-exited lanes of the mask. A lane that has
            // returned takes no part (a ballot counts it as 0), so only `arrived` lanes must be here.
            unsigned arrived = 0;
            for (int l = 0; l < DeviceLimits::kWarpSize; ++l) {
                if (((mask >> l) & 1u) == 0) continue;
                if (l >= lanes) {
                    error = warp + std::to_string(l) + " does not exist (the block has " + std::to_string(n) +
                            " threads)";
                    return false;
                }
                const ThreadCtx& g = lane_ctx(l);
                if (g.done) {
                    // A shuffle or ballot completes without a lane that has returned; an instruction
                    // of the whole warp (mma.sync.aligned) cannot compute its result without it.
                    if (first.op == WarpOp::Collective) {
                        error = warp + std::to_string(l) + " has already returned. " + first.op_name +
                                " needs all 32 lanes of the warp, each holding its part of the matrices: on a "
                                "GPU the result is undefined.";
                        return false;
                    }
                    continue;
                }
                arrived |= 1u << l;
                if (g.wait == Wait::Barrier) {
                    error = warp + std::to_string(l) + " waits at the __syncthreads() on line " +
                            std::to_string(g.barrier_line);
                } else if (g.op != first.op || g.op_mask != mask || g.collective != first.collective) {
                    error = warp + std::to_string(l) + " waits at " + g.op_name + site_token(g.op_site) + " with mask " +
                            hex(g.op_mask);
                }
                if (!error.empty()) {
                    error += ". Every lane of the mask must reach the same warp operation: on a GPU this hangs or "
                             "is undefined.";
                    return false;
                }
            }
            if (first.op == WarpOp::Collective) {
                // Every lane is here (a missing one was an error above): the instruction runs once for the warp.
                void* operands[DeviceLimits::kWarpSize];
                for (int l = 0; l < DeviceLimits::kWarpSize; ++l) operands[l] = lane_ctx(l).operands;
                try {
                    first.collective->run(operands);
                } catch (const detail::Fault& f) {
                    error = f.message;
                    return false;
                }
                for (int l = 0; l < DeviceLimits::kWarpSize; ++l) lane_ctx(l).wait = Wait::None;
                released = true;
                continue;
            }
            uint64_t ballot = 0;
            for (int l = 0; l < lanes; ++l) {
                if (((arrived >> l) & 1u) != 0 && lane_ctx(l).op_value != 0) ballot |= uint64_t{1} << l;
            }
            for (int l = 0; l < lanes; ++l) {
                if (((arrived >> l) & 1u) == 0) continue;
                ThreadCtx& c = lane_ctx(l);
                const int width = c.op_width;
                const int base = l & ~(width - 1);
                int src = l;
                switch (c.op) {
                    case WarpOp::Collective: break;  // completed above, never reaches here
                    case WarpOp::SyncWarp: ++c.warp_syncs; break;
                    case WarpOp::Ballot: c.op_result = ballot; break;
                    case WarpOp::Any: c.op_result = ballot != 0; break;
                    case WarpOp::All: c.op_result = ballot == arrived; break;
                    case WarpOp::Shfl: src = base + (c.op_arg & (width - 1)); break;
                    case WarpOp::ShflUp: src = l - base >= c.op_arg ? l - c.op_arg : l; break;
                    case WarpOp::ShflDown: src = l - base + c.op_arg < width ? l + c.op_arg : l; break;
                    case WarpOp::ShflXor: {
                        // With width < 32 a lane may read an earlier segment; a later one gives its own value.
                        const int target = l ^ c.op_arg;
                        src = (target & ~(width - 1)) > base ? l : target;
                        break;
                    }
                }
                if (c.op == WarpOp::Shfl || c.op == WarpOp::ShflUp || c.op == WarpOp::ShflDown ||
                    c.op == WarpOp::ShflXor) {
                    if (src < 0 || src >= lanes || ((mask >> src) & 1u) == 0) {
                        // Outside the mask: undefined on a GPU, and common in code that discards it
                        // (`v = __shfl_down_sync(0xffff, v, 8); if (lane < 8) ...`). Whether the
                        // value is used cannot be told here, so it is poison (all ones: NaN as a
                        // float), which shows in the answer when it is used.
                        c.op_result = ~uint64_t{0};
                        continue;
                    }
                    if (((arrived >> src) & 1u) == 0) {
                        error = where + std::to_string(w0 / DeviceLimits::kWarpSize) + ": lane " + std::to_string(l) +
                                " reads lane " + std::to_string(src) + " through " + c.op_name + site_token(c.op_site) +
                                ", which has already returned: on a GPU the value is undefined";
                        return false;
                    }
                    c.op_result = lane_ctx(src).op_value;
                }
            }
            for (int l = 0; l < lanes; ++l) {
                if (((arrived >> l) & 1u) != 0) lane_ctx(l).wait = Wait::None;
            }
            released = true;
        }
    }
    return released;
}

// Every thread still running waits at a barrier. Empty when they all wait at the same one and none
// has returned; else the sentence.
std::string barrier_divergence(const BlockRunner& b, int n) {
    std::map<int, std::vector<int>> at_line;
    std::vector<int> returned;
    for (int t = 0; t < n; ++t) {
        const ThreadCtx& c = b.threads[static_cast<std::size_t>(t)];
        if (c.done)
            returned.push_back(t);
        else
            at_line[c.barrier_line].push_back(t);
    }
    if (returned.empty() && at_line.size() == 1) return "";
    std::string s = "barrier divergence in " + b.launch->name + ", block " + u3(b.block_idx) + ": ";
    bool first = true;
    for (const auto& [line, ids] : at_line) {
        s += std::string(first ? "" : "; ") + "threads " + ranges(ids) + " wait at the __syncthreads() on line " +
             std::to_string(line);
        first = false;
    }
    if (!returned.empty()) s += "; threads " + ranges(returned) + " returned without reaching it";
    return s +
           " (linear thread indices). A barrier must be reached by every thread of the block: on a GPU this "
           "block hangs or computes garbage.";
}

// Thrown inside a parked fiber when its block is abandoned, caught by the fiber's own entry: the
// stack unwinds by an ordinary exception (destroying a suspended Boost fiber would unwind it with
// fiber_unwind on top of its stack, which AddressSanitizer cannot follow without annotations).
struct Abandon {};

// Runs `c` until it parks or returns.
void resume_fiber(BlockRunner& b, ThreadCtx& c) {
    leaving(&b.scheduler_fake_stack, c.stack);
    c.f = std::move(c.f).resume();
    arrived(b.scheduler_fake_stack, nullptr);
}

// From a fiber back to its block's scheduler, until the scheduler resumes this fiber again.
void park(ThreadCtx& c) {
    leaving(&c.fake_stack, t_block->scheduler_stack);
    c.sink = std::move(c.sink).resume();
    arrived(c.fake_stack, nullptr);
}

void abort_block(BlockRunner& b, int n) {
    b.abandoning = true;
    for (int t = 0; t < n; ++t) {
        ThreadCtx& c = b.threads[static_cast<std::size_t>(t)];
        if (!c.f) continue;
        t_thread = &c;
        detail::t_builtins = &c.b;
        resume_fiber(b, c);
    }
    b.abandoning = false;
}

void run_block(BlockRunner& b, LaunchState& l, const U3& block_idx, const std::function<void()>& body) {
    const U3 bd = l.cfg.block;
    const int n = static_cast<int>(bd.x * bd.y * bd.z);
    if (b.threads.size() < static_cast<std::size_t>(n)) b.threads.resize(static_cast<std::size_t>(n));
    if (b.shadow.size() < DeviceLimits::kMaxSharedBytes / 4) b.shadow.resize(DeviceLimits::kMaxSharedBytes / 4);
    b.shared_bytes = b.dynamic_bytes = l.cfg.shared_bytes;
    b.shared_base = b.shared.front().bytes;
    if (l.opt.shared_window != nullptr) {
        b.shared_base = l.opt.shared_window;
        b.shared_bytes = l.opt.shared_window_bytes;
    }
    b.static_arrays.clear();
    if (b.shared_bytes > 0) std::memset(b.shared_base, 0xff, b.shared_bytes);  // NaN until written
    b.block_idx = block_idx;
    b.interval = 0;
    ++b.epoch;
    for (int t = 0; t < n; ++t) {
        ThreadCtx& c = b.threads[static_cast<std::size_t>(t)];
        c.tid = t;
        c.b.thread_idx = {static_cast<unsigned>(t) % bd.x, (static_cast<unsigned>(t) / bd.x) % bd.y,
                          static_cast<unsigned>(t) / (bd.x * bd.y)};
        c.b.block_idx = block_idx;
        c.b.block_dim = bd;
        c.b.grid_dim = l.cfg.grid;
        c.started = c.done = false;
        c.wait = ThreadCtx::Wait::None;
        c.barrier_line = 0;
        c.barrier_predicate = c.barrier_count = 0;
        c.warp_syncs = 0;
        c.bank_log.clear();
        c.global_log.clear();
        c.shared_seq = c.global_seq = 0;
    }
    b.trace = l.opt.trace;
    if (b.trace != nullptr) {
        b.trace->block = block_idx;
        b.trace->block_dim = bd;
        b.trace->intervals = 1;
        b.trace->events.clear();
        b.trace->regions.clear();
    }

    const bool banks = l.opt.count_bank_conflicts;
    const bool sectors = l.opt.count_global_sectors;
    for (;;) {
        for (int k = 0; k < n; ++k) {
            const int t = l.opt.reverse_thread_order ? n - 1 - k : k;
            ThreadCtx& c = b.threads[static_cast<std::size_t>(t)];
            if (c.done || c.wait != ThreadCtx::Wait::None) continue;
            t_thread = &c;
            detail::t_builtins = &c.b;
            if (!c.started) {
                c.started = true;
                c.f = bctx::fiber(std::allocator_arg, b.stacks, [&b, &c, &l, &body](bctx::fiber&& sink) {
                    arrived(nullptr, &b.scheduler_stack);
                    c.sink = std::move(sink);
                    try {
                        body();
                    } catch (const Abandon&) {
                        // the block was given up while this thread waited; nothing to report
                    } catch (const detail::Fault& f) {
                        l.fail(f.message);
                    } catch (const std::exception& e) {
                        l.fail("in " + l.name + ": the simulated kernel threw " + e.what());
                    }
                    leaving(nullptr, b.scheduler_stack);  // this stack ends here
                    return std::move(c.sink);
                });
                c.stack = b.last_stack;
            }
            resume_fiber(b, c);
            if (!c.f) c.done = true;
            // After each warp's turn, the measurement's stop request too: one block of a large
            // kernel (a 256-thread tile looping over K) can take longer than the 100 ms a stop may
            // take (issue 38). The block is given up as a failing one is; a traced block always runs.
            if ((k & 31) == 31 && l.opt.trace == nullptr && core::cancel_requested()) l.fail("cancelled");
            if (l.failed.load(std::memory_order_relaxed)) {
                abort_block(b, n);
                l.block_barriers += b.interval;
                return;
            }
        }
        std::string warp_error;
        const bool released = resolve_warp_ops(b, n, warp_error);
        if (!warp_error.empty()) {
            l.fail(warp_error);
            abort_block(b, n);
            l.block_barriers += b.interval;  // the barriers it did cross, for a picture of how far it got
            return;
        }
        if (released) continue;  // run the lanes whose warp operation completed
        int waiting = 0;
        for (int t = 0; t < n; ++t) waiting += b.threads[static_cast<std::size_t>(t)].done ? 0 : 1;
        if (waiting == 0) break;
        const std::string divergence = barrier_divergence(b, n);
        if (!divergence.empty()) {
            l.fail(divergence);
            abort_block(b, n);
            l.block_barriers += b.interval;  // the barriers it did cross, for a picture of how far it got
            return;
        }
        if (banks) flush_bank_log(b, n);
        if (sectors) flush_global_log(b, n);
        ++b.interval;
        ++b.epoch;
        int predicates = 0;
        for (int t = 0; t < n; ++t) predicates += b.threads[static_cast<std::size_t>(t)].barrier_predicate;
        for (int t = 0; t < n; ++t) {
            ThreadCtx& c = b.threads[static_cast<std::size_t>(t)];
            c.wait = ThreadCtx::Wait::None;
            c.shared_seq = c.global_seq = 0;
            c.barrier_count = predicates;
            c.barrier_predicate = 0;
        }
        if (b.trace != nullptr) b.trace->intervals = b.interval + 1;
    }
    if (banks) flush_bank_log(b, n);
    if (sectors) flush_global_log(b, n);
    l.block_barriers += b.interval;
}

BlockRunner& runner_for_this_thread() {
    thread_local BlockRunner runner;
    prepare_overflow_report();
    return runner;
}

}  // namespace

// [SECTION] checks called from the device environment

void detail::global_fault(const Region* r, const void* addr, std::size_t bytes, std::size_t align, bool store) {
    const std::string access = std::string(store ? "writes " : "reads ") + std::to_string(bytes) + " bytes";
    if (r == nullptr) {
        throw Fault{"global access through a pointer the simulator did not hand out " + where_now() + ": " + access +
                    " at a host address"};
    }
    const auto offset = reinterpret_cast<const std::byte*>(addr) - r->begin;
    const auto size = r->end - r->begin;
    const std::string buffer = "buffer '" + r->name + "' (" + std::to_string(size) + " bytes)";
    if (offset < 0 || offset + static_cast<std::ptrdiff_t>(bytes) > size) {
        throw Fault{std::string("out-of-bounds global ") + (store ? "write " : "read ") + where_now() + ": " + access +
                    " at byte offset " + std::to_string(offset) + " of " + buffer +
                    "; on a GPU: cudaErrorIllegalAddress, or another allocation's data read or overwritten"};
    }
    throw Fault{std::string("misaligned global ") + (store ? "write " : "read ") + where_now() + ": " + access +
                " at byte offset " + std::to_string(offset) + " of " + buffer + ", address not a multiple of " +
                std::to_string(align) + "; on a GPU: cudaErrorMisalignedAddress"};
}

void detail::shared_access(const void* addr, std::size_t bytes, std::size_t align, bool store) {
    if (t_block == nullptr || t_thread == nullptr) throw Fault{"shared memory used outside any kernel"};
    BlockRunner& b = *t_block;
    const std::byte* base = b.shared_base;
    const auto offset = reinterpret_cast<const std::byte*>(addr) - base;
    const auto access = [&] { return std::string(store ? "writes " : "reads ") + std::to_string(bytes) + " bytes"; };
    if (b.shared_bytes == 0 || offset < 0 ||
        offset + static_cast<std::ptrdiff_t>(bytes) > static_cast<std::ptrdiff_t>(b.shared_bytes)) {
        throw Fault{std::string("out-of-bounds shared ") + (store ? "write " : "read ") + where_now() +
                    site_token(detail::t_access_site) + ": " + access() + " at byte offset " + std::to_string(offset) + " of the block's " +
                    std::to_string(b.shared_bytes) + " bytes of shared memory"};
    }
    if (reinterpret_cast<std::uintptr_t>(addr) % align != 0) {
        throw Fault{std::string("misaligned shared ") + (store ? "write " : "read ") + where_now() +
                    site_token(detail::t_access_site) + ": " + access() +
                    " at byte offset " + std::to_string(offset) + ", not a multiple of " + std::to_string(align)};
    }
    const int tid = t_thread->tid;
    const uint32_t syncs = t_thread->warp_syncs;
    // Another thread's access at `stamp` is ordered before this one by a __syncwarp of their warp.
    const auto ordered = [&](int other, uint32_t stamp) {
        return other / DeviceLimits::kWarpSize == tid / DeviceLimits::kWarpSize && stamp < syncs;
    };
    const std::size_t first = static_cast<std::size_t>(offset) / 4;
    const std::size_t last = (static_cast<std::size_t>(offset) + bytes - 1) / 4;
    for (std::size_t w = first; w <= last; ++w) {
        Shadow& s = b.shadow[w];
        if (s.epoch != b.epoch) {
            s = Shadow{b.epoch, store ? tid : -1, store ? -1 : tid, false, tid / DeviceLimits::kWarpSize, syncs,
                       syncs, store ? detail::t_access_site : nullptr, store ? nullptr : detail::t_access_site};
            continue;
        }
        const bool writer_conflicts = s.writer >= 0 && s.writer != tid && !ordered(s.writer, s.writer_syncs);
        if (store) {
            if (writer_conflicts) race(b, w, "writes", s.writer, "wrote", s.writer_site);
            const bool reader_ordered = s.many_readers ? s.readers_warp == tid / DeviceLimits::kWarpSize &&
                                                             s.reader_syncs < syncs
                                                       : s.reader == tid || ordered(s.reader, s.reader_syncs);
            if (s.reader >= 0 && !reader_ordered)
                race(b, w, "writes", s.reader != tid ? s.reader : -1, "read", s.reader != tid ? s.reader_site : nullptr);
            s.writer = tid;
            s.writer_syncs = syncs;
            s.writer_site = detail::t_access_site;
            s.reader = -1;  // every earlier read is ordered before this write
            s.many_readers = false;
            s.reader_syncs = 0;
        } else {
            if (writer_conflicts) race(b, w, "reads", s.writer, "wrote", s.writer_site);
            if (s.reader < 0) {
                s.reader = tid;
                s.reader_site = detail::t_access_site;
                s.readers_warp = tid / DeviceLimits::kWarpSize;
            } else if (s.reader != tid) {
                s.many_readers = true;
                if (s.readers_warp != tid / DeviceLimits::kWarpSize) s.readers_warp = -1;
            }
            s.reader_syncs = std::max(s.reader_syncs, syncs);
        }
    }
    if (b.launch->opt.count_bank_conflicts) t_thread->bank_log.push_back(static_cast<uint32_t>(first));
    if (b.trace != nullptr) {
        b.trace->events.push_back({tid, b.interval, t_thread->shared_seq++, Space::Shared, store,
                                   static_cast<uint32_t>(bytes), static_cast<int64_t>(offset), -1});
    }
}

void detail::log_global(const void* addr, std::size_t bytes, const Region* r, bool store) {
    if (t_thread == nullptr || t_block == nullptr) return;
    BlockRunner& b = *t_block;
    if (b.launch->opt.count_global_sectors)
        t_thread->global_log.push_back({reinterpret_cast<std::uintptr_t>(addr), static_cast<uint32_t>(bytes)});
    if (b.trace != nullptr && r != nullptr) {
        // Buffers are few: a linear search by name keeps the event small.
        auto& names = b.trace->regions;
        auto it = std::find(names.begin(), names.end(), r->name);
        if (it == names.end()) it = names.insert(names.end(), r->name);
        b.trace->events.push_back({t_thread->tid, b.interval, t_thread->global_seq++, Space::Global, store,
                                   static_cast<uint32_t>(bytes),
                                   static_cast<int64_t>(reinterpret_cast<const std::byte*>(addr) - r->begin),
                                   static_cast<int32_t>(it - names.begin())});
    }
}

void detail::refuse(const std::string& why) {
    throw Fault{"the simulator cannot run " +
                (t_block != nullptr ? t_block->launch->name : std::string("this kernel")) + ": " + why};
}

bool detail::running_thread(RunningThread& out) {
    if (t_block == nullptr || t_thread == nullptr) return false;
    const BlockRunner& b = *t_block;
    const U3 g = b.launch->cfg.grid;
    out.tid = t_thread->tid;
    out.interval = b.interval;
    out.block = b.block_idx.x + int64_t{g.x} * (b.block_idx.y + int64_t{g.y} * b.block_idx.z);
    out.stack_begin = static_cast<const std::byte*>(t_thread->stack.bottom);
    out.stack_bytes = t_thread->stack.size;
    return true;
}

void* detail::dynamic_shared_pointer() {
    if (t_block == nullptr) throw Fault{"dynamic shared memory asked for outside any kernel"};
    if (t_block->launch->opt.shared_window != nullptr) throw Fault{"dynamic shared memory is not given to this kernel"};
    return t_block->shared.front().bytes;
}

void* detail::static_shared_pointer(std::size_t bytes, std::size_t align, const void* site, const char* name) {
    if (t_block == nullptr) throw Fault{std::string("static shared array '") + name + "' declared outside any kernel"};
    BlockRunner& b = *t_block;
    if (b.launch->opt.shared_window != nullptr) throw Fault{"GPULAB_STATIC_SHARED is not for this kernel"};
    std::byte* base = b.shared.front().bytes;
    for (const auto& [declared, offset] : b.static_arrays)
        if (declared == site) return base + offset;
    const std::size_t offset = (b.shared_bytes + align - 1) / align * align;
    if (offset + bytes > DeviceLimits::kMaxSharedBytes) {
        throw Fault{"static shared array '" + std::string(name) + "' (" + std::to_string(bytes) + " bytes) in " +
                    b.launch->name + ": with the " + std::to_string(b.dynamic_bytes) +
                    " bytes of dynamic shared memory and the static arrays before it, a block needs " +
                    std::to_string(offset + bytes) + " bytes of shared memory; a GPU gives a kernel at most " +
                    std::to_string(DeviceLimits::kMaxSharedBytes) + " (48 KiB) and refuses the launch"};
    }
    std::memset(base + b.shared_bytes, 0xff, offset + bytes - b.shared_bytes);  // NaN until written
    b.shared_bytes = offset + bytes;
    b.static_arrays.push_back({site, offset});
    return base + offset;
}

uint64_t detail::warp_op(WarpOp op, unsigned mask, uint64_t value, int arg, int width, const char* name) {
    if (t_thread == nullptr) throw Fault{std::string(name) + " called outside any kernel"};
    ThreadCtx& c = *t_thread;
    const int lane = c.tid % DeviceLimits::kWarpSize;
    if (((mask >> lane) & 1u) == 0) {
        throw Fault{std::string(name) + " " + where_now() + site_token(detail::t_access_site) + ": the mask " + hex(mask) +
                    " leaves out lane " +
                    std::to_string(lane) + ", the caller itself (undefined on a GPU)"};
    }
    if (width < 1 || width > DeviceLimits::kWarpSize || (width & (width - 1)) != 0) {
        throw Fault{std::string(name) + " " + where_now() + ": width " + std::to_string(width) +
                    " is not a power of 2 from 1 to 32"};
    }
    c.wait = ThreadCtx::Wait::Warp;
    c.op = op;
    c.op_name = name;
    c.op_site = detail::t_access_site;
    c.op_mask = mask;
    c.op_value = value;
    c.op_arg = arg;
    c.op_width = width;
    c.collective = nullptr;
    c.operands = nullptr;
    park(c);
    if (t_block->abandoning) throw Abandon{};
    return c.op_result;
}

void detail::warp_collective(const WarpCollective& op, void* lane_operands) {
    if (t_thread == nullptr) throw Fault{std::string(op.name) + " called outside any kernel"};
    ThreadCtx& c = *t_thread;
    c.wait = ThreadCtx::Wait::Warp;
    c.op = WarpOp::Collective;
    c.op_name = op.name;
    c.op_site = detail::t_access_site;
    c.op_mask = 0xffffffffu;  // .aligned: the whole warp, always
    c.collective = &op;
    c.operands = lane_operands;
    park(c);
    if (t_block->abandoning) throw Abandon{};
}

void detail::sync_threads(int line) { (void)sync_threads_count(line, 0); }

int detail::sync_threads_count(int line, int predicate) {
    if (t_thread == nullptr) throw Fault{"__syncthreads() called outside any kernel"};
    ThreadCtx& c = *t_thread;
    c.wait = ThreadCtx::Wait::Barrier;
    c.barrier_line = line;
    c.barrier_predicate = predicate != 0 ? 1 : 0;
    park(c);
    if (t_block->abandoning) throw Abandon{};
    return c.barrier_count;
}

// [SECTION] block order

namespace {
uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
}  // namespace

std::vector<int64_t> block_order(int64_t blocks, uint64_t seed) {
    std::vector<int64_t> order(static_cast<std::size_t>(std::max<int64_t>(0, blocks)));
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int64_t>(i);
    if (seed == 0 || order.size() < 2) return order;
    // Fisher-Yates with the seed mixed with the grid's size: each grid its own order, the same one
    // on every machine (no std:: distribution, whose results differ between standard libraries).
    uint64_t state = seed ^ (static_cast<uint64_t>(blocks) * 0x2545f4914f6cdd1dull);
    for (std::size_t i = order.size() - 1; i > 0; --i) {
        const std::size_t j = static_cast<std::size_t>(splitmix64(state) % (i + 1));
        std::swap(order[i], order[j]);
    }
    // Index order by chance (a grid of 2 or 3 blocks) would hide what the shuffle is for.
    bool identity = true;
    for (std::size_t i = 0; i < order.size() && identity; ++i) identity = order[i] == static_cast<int64_t>(i);
    if (identity) std::reverse(order.begin(), order.end());
    return order;
}

// [SECTION] launching

std::string launch_problem(const LaunchConfig& c) {
    using L = DeviceLimits;
    const unsigned block[3] = {c.block.x, c.block.y, c.block.z};
    const unsigned grid[3] = {c.grid.x, c.grid.y, c.grid.z};
    const char* axis[3] = {"x", "y", "z"};
    for (int i = 0; i < 3; ++i) {
        if (block[i] == 0 || grid[i] == 0) {
            return std::string("a zero ") + (block[i] == 0 ? "block" : "grid") + " dimension in " + axis[i] +
                   ": a GPU refuses the launch (cudaErrorInvalidConfiguration)";
        }
        if (block[i] > L::kMaxBlockDim[i]) {
            return "blockDim." + std::string(axis[i]) + " = " + std::to_string(block[i]) + ": a GPU allows at most " +
                   std::to_string(L::kMaxBlockDim[i]) + " (cudaErrorInvalidConfiguration)";
        }
        if (grid[i] > L::kMaxGridDim[i]) {
            return "gridDim." + std::string(axis[i]) + " = " + std::to_string(grid[i]) + ": a GPU allows at most " +
                   std::to_string(L::kMaxGridDim[i]) + " blocks in " + axis[i] + " (cudaErrorInvalidConfiguration)";
        }
    }
    const uint64_t threads = uint64_t{c.block.x} * c.block.y * c.block.z;
    if (threads > L::kMaxThreadsPerBlock) {
        return "a block of " + std::to_string(threads) + " threads: a GPU allows at most " +
               std::to_string(L::kMaxThreadsPerBlock) + " threads per block (cudaErrorInvalidConfiguration)";
    }
    if (c.shared_bytes > L::kMaxSharedBytes) {
        return std::to_string(c.shared_bytes) +
               " bytes of dynamic shared memory per block: a GPU gives a kernel at most " +
               std::to_string(L::kMaxSharedBytes) + " (48 KiB) unless the kernel opts in to more";
    }
    return "";
}

Result detail::launch(std::string_view kernel_name, const LaunchConfig& c, const Options& o,
                      const std::function<void()>& body) {
    Result r;
    const std::string problem = launch_problem(c);
    if (!problem.empty()) {
        r.error = "launch of " + std::string(kernel_name) + " refused: " + problem;
        return r;
    }
    if (o.shared_window != nullptr && (o.parallel || c.shared_bytes > 0 || o.shared_window_bytes > DeviceLimits::kMaxSharedBytes)) {
        r.error = "launch of " + std::string(kernel_name) +
                  (o.shared_window_bytes > DeviceLimits::kMaxSharedBytes
                       ? " refused: its static shared arrays take " + std::to_string(o.shared_window_bytes) +
                             " bytes; a GPU gives a block at most " + std::to_string(DeviceLimits::kMaxSharedBytes) +
                             " (48 KiB)"
                       : ": a shared window needs one block at a time and no dynamic shared memory");
        return r;
    }
    LaunchState l;
    l.name = std::string(kernel_name);
    l.cfg = c;
    l.opt = o;
    const int64_t blocks = int64_t{c.grid.x} * c.grid.y * c.grid.z;
    // One block at a time in a seeded shuffled order (Options::block_order_seed); empty: index order.
    const std::vector<int64_t> order = !o.parallel && o.trace == nullptr && o.block_order_seed != 0
                                           ? block_order(blocks, o.block_order_seed)
                                           : std::vector<int64_t>();
    const auto start = std::chrono::steady_clock::now();
    auto run_range = [&](int64_t begin, int64_t end) {
        BlockRunner& b = runner_for_this_thread();
        BlockRunner* outer_block = t_block;
        ThreadCtx* outer_thread = t_thread;
        const Builtins* outer_builtins = detail::t_builtins;
        const bool outer_count = detail::t_count_global;
        b.launch = &l;
        t_block = &b;
        detail::t_count_global = o.count_global_sectors || o.trace != nullptr;
        // Between blocks: a failure anywhere, or the measurement being stopped (core/runtime/cancel.h; a
        // traced block is one block for a picture, never a measurement, so it always runs).
        for (int64_t i = begin;
             i < end && !l.failed.load(std::memory_order_relaxed) && (o.trace != nullptr || !core::cancel_requested());
             ++i) {
            const int64_t k = order.empty() ? i : order[static_cast<std::size_t>(i)];
            const U3 idx{static_cast<unsigned>(k % c.grid.x), static_cast<unsigned>((k / c.grid.x) % c.grid.y),
                         static_cast<unsigned>(k / (int64_t{c.grid.x} * c.grid.y))};
            run_block(b, l, idx, body);
        }
        t_block = outer_block;
        detail::t_count_global = outer_count;
        t_thread = outer_thread;
        detail::t_builtins = outer_builtins;
    };
    if (o.trace != nullptr) {
        const U3 t = o.trace_block;
        if (t.x >= c.grid.x || t.y >= c.grid.y || t.z >= c.grid.z) {
            r.error = "trace of " + std::string(kernel_name) + ": block " + u3(t) + " is outside the grid " + u3(c.grid);
            return r;
        }
        const int64_t i = t.x + int64_t{c.grid.x} * (t.y + int64_t{c.grid.y} * t.z);
        run_range(i, i + 1);
    } else if (o.parallel) {
        cpu::ThreadPool& pool = cpu::ThreadPool::shared();
        const int64_t chunk = std::max<int64_t>(1, blocks / (8 * pool.size()));
        pool.parallel_for(blocks, run_range, chunk);
    } else {
        run_range(0, blocks);
    }
    r.stats.wall_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    r.stats.blocks = o.trace != nullptr ? 1 : blocks;
    r.stats.threads = r.stats.blocks * c.block.x * c.block.y * c.block.z;
    r.stats.block_barriers = l.block_barriers.load();
    r.stats.thread_barrier_crossings = r.stats.block_barriers * c.block.x * c.block.y * c.block.z;
    r.stats.shared_requests = l.requests.load();
    r.stats.shared_wavefronts = l.wavefronts.load();
    r.stats.global_requests = l.global_requests.load();
    r.stats.global_sectors = l.global_sectors.load();
    r.stats.global_bytes = l.global_bytes.load();
    r.ok = !l.failed.load();
    r.error = l.error;
    if (r.ok && core::cancel_requested() && o.trace == nullptr) {
        r.ok = false;
        r.error = "cancelled";
    }
    return r;
}

}  // namespace gpulab::sim
