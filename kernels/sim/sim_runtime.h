// The SIMT simulator's runtime: runs a CUDA kernel, compiled by the host compiler, with CUDA's
// execution semantics on the CPU. Plain C++ (Boost.Context for the fibers); built in every build,
// CPU-only included. What a kernel sees of it is the device environment in sim_device_env.h.
//
// Execution model (one launch):
//
//   grid ──> blocks spread over cpu::ThreadPool::shared(), one block at a time per OS thread
//   block ─> one fiber per CUDA thread (pooled 16 KiB stacks), run one after another in linear
//            thread order (or reversed, Options::reverse_thread_order); each fiber runs until it
//            reaches __syncthreads() or returns:
//
//     pass 1   t0 ──> barrier   t1 ──> barrier   ...   t255 ──> barrier     interval 0
//     pass 2   t0 ──> barrier   t1 ──> barrier   ...   t255 ──> barrier     interval 1
//     pass 3   t0 ──> return    t1 ──> return    ...   t255 ──> return      interval 2
//
//   so __syncthreads() is a real barrier over the block: no thread starts interval k+1 before every
//   thread has finished interval k. Dynamic shared memory is one buffer per block (filled with NaN
//   bytes at block start: reading before writing shows).
//
// Checks, each ending the launch with a sentence (Result::error), never the process:
//   - a launch the GPU would refuse (block over 1024 threads or a dimension over its maximum, grid
//     dimension over its maximum, dynamic shared memory over 48 KiB), before anything runs; static
//     shared arrays that take the block over 48 KiB, when declared;
//   - global accesses outside the buffer the pointer came from (Buffer hands out pointers that know
//     their extent), and vector accesses not aligned to their size (a float4 needs 16 bytes);
//   - shared accesses outside the block's shared memory;
//   - shared-memory races: per 4-byte word and barrier interval, the writer and the readers; a word
//     written by one thread and read or written by another in the same interval is a race (it is
//     exactly what would make two thread orders of that interval disagree), reported with kernel,
//     block, both threads and the address;
//   - barrier divergence: some threads wait at a barrier that others never reach (they returned, or
//     wait at another __syncthreads): a hang on a GPU, an error naming the threads here;
//   - mma.sync (sim_mma.h) is a rendezvous of all 32 lanes of the warp (WarpCollective): a lane that
//     has returned or waits elsewhere ends the launch with a sentence naming it;
//   - warp intrinsics (__syncwarp, __ballot_sync, __any_sync, __all_sync, __shfl*_sync) are a
//     rendezvous of the non-exited lanes in their mask, with CUDA's documented results (a lane that
//     has returned takes no part: a ballot counts it as 0; with a width under 32, __shfl_xor_sync
//     reads earlier segments and gives the caller's own value for later ones); a lane of the mask
//     that waits at __syncthreads() or at a different warp operation, a caller outside its own
//     mask, or a shuffle from a lane that has returned ends the launch with a sentence; a shuffle
//     from a lane outside the mask (or past the block's last thread) gives all-ones bits (NaN as a
//     float, -1 as an int), which a kernel may discard as it may on a GPU, where the value is
//     undefined. __syncwarp orders shared memory between the lanes it synchronises (race check);
//   - __syncthreads_count/_and/_or: the barrier, and the block's predicates combined at it;
//   - block order: with Options::block_order_seed the blocks run in a seeded shuffled order;
//   - a CUDA thread that needs more than its 16 KiB stack hits a guard page: the program stops
//     with a sentence naming the kernel and thread (sim_runtime.cpp), never overwriting another
//     thread's stack;
//   - intrinsics the simulator cannot model faithfully (__activemask, clock64) refuse the kernel
//     with a sentence.
// Counted: shared-memory bank conflicts (Options::count_bank_conflicts): the k-th shared access of
// each lane of a warp within one barrier interval form one request; the wavefronts it needs are the
// most distinct 4-byte words that fall into one of 32 banks (1 = conflict-free). Global memory
// (Options::count_global_sectors): the same pairing of the lanes' k-th global accesses into one
// request, and the distinct 32-byte sectors it touches (coalescing: a warp's 32 aligned float4s
// are 512 bytes in 16 sectors).
//
// Verified by tests/test_sim.cpp (every check caught on a deliberately broken kernel, limits,
// bank-conflict counts) and by the cuda-sim halves of tests/test_gpu_*.cpp (real kernels equal
// cpu-scalar).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "runtime/cancel.h"

namespace gpulab::sim {

// [SECTION] launch geometry and the limits of the modelled GPU

struct U3 {
    unsigned x = 1, y = 1, z = 1;
};

// What every current NVIDIA GPU (compute capability 7.5 and newer) enforces at launch, and the
// dynamic shared memory a kernel gets without opting in (cudaFuncAttributeMaxDynamicSharedMemorySize).
struct DeviceLimits {
    static constexpr unsigned kMaxThreadsPerBlock = 1024;
    static constexpr unsigned kMaxBlockDim[3] = {1024, 1024, 64};
    static constexpr unsigned kMaxGridDim[3] = {2147483647u, 65535, 65535};
    static constexpr std::size_t kMaxSharedBytes = 48 * 1024;
    static constexpr int kWarpSize = 32;
    static constexpr int kBanks = 32;  // 4-byte banks
};

// The GPU the simulator stands in for where a launch configuration asks the device (resident blocks
// per SM from the occupancy calculator): an H100 SXM5, 132 SMs, 2048 threads per SM.
inline constexpr int kModelSms = 132;
inline constexpr int kModelThreadsPerSm = 2048;

struct LaunchConfig {
    U3 grid, block;
    std::size_t shared_bytes = 0;  // dynamic shared memory per block
};

// Empty when a GPU would accept the launch, else one sentence naming the limit.
std::string launch_problem(const LaunchConfig& c);

enum class Space { Global, Shared };

// One recorded access of the traced block (Options::trace): which thread touched which bytes, in
// which barrier interval, as its how-many-th access to that space in the interval (so the k-th
// accesses of a warp's lanes pair into one warp request, as the counters pair them).
struct TraceEvent {
    int32_t thread = 0;    // linear thread index in the block
    int32_t interval = 0;  // barriers crossed by the block before this access
    int32_t seq = 0;       // this thread's access number in `space` within the interval, from 0
    Space space = Space::Global;
    bool store = false;
    uint32_t bytes = 0;
    int64_t offset = 0;    // byte offset in the buffer (global) or in the block's shared memory
    int32_t region = -1;   // index into Trace::regions (global); -1 for shared memory
};

// The trace of one block of a launch: every access its threads made, in execution order, and
// where the barriers fell (an interval ends at each). Recorded only for small views: one block.
struct Trace {
    U3 block;                          // which block (blockIdx) was traced
    U3 block_dim;
    int intervals = 0;                 // barrier intervals the block ran (barriers + 1)
    std::vector<std::string> regions;  // names of the global buffers touched
    std::vector<TraceEvent> events;
};

struct Options {
    bool reverse_thread_order = false;  // run each interval's threads last to first
    bool count_bank_conflicts = false;  // costs a log of every shared access
    bool count_global_sectors = false;  // costs a log of every global access
    bool parallel = true;               // blocks over the shared thread pool; false: one OS thread
    // When set: run only block `trace_block` of the grid (a block's work never depends on another
    // block's), on one OS thread, recording every access into *trace. Stats then count that block.
    Trace* trace = nullptr;
    U3 trace_block{0, 0, 0};
    // When set: the block's shared memory is this memory rather than the simulator's own (a
    // student's kernel keeps its static __shared__ arrays where the linker put them; puzzles/).
    // Filled with 0xFF at every block start, bounds- and race-checked like the simulator's own.
    // Needs parallel = false (one block at a time) and no dynamic shared memory.
    std::byte* shared_window = nullptr;
    std::size_t shared_window_bytes = 0;
    // When nonzero (and parallel = false, no trace): the blocks run one at a time in an order
    // shuffled by this seed (never index order when the grid has 2 or more blocks), the same order
    // for the same seed and grid. A GPU promises no order between blocks, so a kernel whose answer
    // depends on it fails here as it would, by chance, on some GPU.
    uint64_t block_order_seed = 0;
};

// The order in which a launch of `blocks` blocks runs them with Options::block_order_seed `seed`
// (linear block indices; index order when the seed is 0).
std::vector<int64_t> block_order(int64_t blocks, uint64_t seed);

struct Stats {
    int64_t blocks = 0;
    int64_t threads = 0;                   // CUDA threads run (fibers)
    int64_t block_barriers = 0;            // __syncthreads() completed, counted once per block
    int64_t thread_barrier_crossings = 0;  // the same, counted once per thread
    int64_t shared_requests = 0;           // warp-wide shared accesses (when counted)
    int64_t shared_wavefronts = 0;         // what they cost in bank passes; == requests: no conflicts
    int64_t global_requests = 0;           // warp-wide global accesses (when counted)
    int64_t global_sectors = 0;            // distinct 32-byte sectors they touch
    int64_t global_bytes = 0;              // bytes the threads asked for
    int64_t wall_ns = 0;                   // the simulation's own time: never a GPU time
    // Bytes asked for per byte moved in 32-byte sectors: 1.0 is perfectly coalesced.
    double global_efficiency() const {
        return global_sectors > 0 ? static_cast<double>(global_bytes) / (32.0 * static_cast<double>(global_sectors))
                                  : 1.0;
    }
    double bank_conflict_factor() const {
        return shared_requests > 0 ? static_cast<double>(shared_wavefronts) / static_cast<double>(shared_requests)
                                   : 1.0;
    }
};

struct Result {
    bool ok = false;
    std::string error;  // one sentence (or a few) naming the kernel, block, thread and address
    Stats stats;
};

// [SECTION] memory the simulator hands out

// A buffer's extent, kept by every pointer into it.
struct Region {
    const std::byte* begin = nullptr;
    const std::byte* end = nullptr;
    std::string name;
};

namespace detail {
struct Fault {
    std::string message;
};
[[noreturn]] void global_fault(const Region* r, const void* addr, std::size_t bytes, std::size_t align, bool store);
// Checks a shared access against the current block and records it (race shadow, bank log).
void shared_access(const void* addr, std::size_t bytes, std::size_t align, bool store);
// True while the running launch counts global sectors (Options::count_global_sectors) or traces.
inline thread_local bool t_count_global = false;
void log_global(const void* addr, std::size_t bytes, const Region* r, bool store);
// Ends the current kernel with `why` (an intrinsic the simulator cannot model, ...).
[[noreturn]] void refuse(const std::string& why);
}  // namespace detail

// What `p[i]` yields: loads and stores are checked (and, for shared memory, recorded) when they
// happen, so a load and a store are told apart in the messages.
template <class T, Space S>
class Ref {
public:
    using Value = std::remove_const_t<T>;
    Ref(T* p, const Region* r) : p_(p), r_(r) {}

    operator Value() const {
        check(false);
        return *p_;
    }
    const Ref& operator=(const Value& v) const
        requires(!std::is_const_v<T>)
    {
        check(true);
        *const_cast<Value*>(p_) = v;
        return *this;
    }
    const Ref& operator=(const Ref& o) const
        requires(!std::is_const_v<T>)
    {
        return *this = static_cast<Value>(o);
    }
    const Ref& operator+=(const Value& v) const
        requires(!std::is_const_v<T>)
    {
        return *this = static_cast<Value>(*this) + v;
    }

private:
    void check(bool store) const {
        if constexpr (S == Space::Global) {
            const auto* a = reinterpret_cast<const std::byte*>(p_);
            if (r_ == nullptr || a < r_->begin || a + sizeof(Value) > r_->end ||
                reinterpret_cast<std::uintptr_t>(a) % alignof(Value) != 0) {
                detail::global_fault(r_, p_, sizeof(Value), alignof(Value), store);
            }
            if (detail::t_count_global) detail::log_global(p_, sizeof(Value), r_, store);
        } else {
            detail::shared_access(p_, sizeof(Value), alignof(Value), store);
        }
    }
    T* p_;
    const Region* r_;
};

// A pointer into global or shared memory that knows where it came from. Arithmetic is unchecked
// (as on a GPU); every access is checked.
template <class T, Space S>
class Ptr {
public:
    Ptr() = default;
    Ptr(T* p, const Region* r) : p_(p), r_(r) {}
    template <class U>
        requires std::is_convertible_v<U*, T*>
    Ptr(const Ptr<U, S>& o) : p_(o.raw()), r_(o.region()) {}

    Ref<T, S> operator[](int64_t i) const { return {p_ + i, r_}; }
    Ref<T, S> operator*() const { return {p_, r_}; }
    Ptr operator+(int64_t i) const { return {p_ + i, r_}; }
    Ptr operator-(int64_t i) const { return {p_ - i, r_}; }
    Ptr& operator+=(int64_t i) {
        p_ += i;
        return *this;
    }
    Ptr& operator++() {
        ++p_;
        return *this;
    }
    int64_t operator-(const Ptr& o) const { return p_ - o.p_; }
    bool operator==(const Ptr& o) const { return p_ == o.p_; }

    T* raw() const { return p_; }
    const Region* region() const { return r_; }

private:
    T* p_ = nullptr;
    const Region* r_ = nullptr;
};

template <class T>
using GlobalPtr = Ptr<T, Space::Global>;
template <class T>
using SharedPtr = Ptr<T, Space::Shared>;

// Reinterprets a pointer as one to another type in the same buffer (float* to float4*), as
// reinterpret_cast does on the GPU; alignment is checked when it is dereferenced.
template <class To, class From, Space S>
Ptr<To, S> reinterpret(const Ptr<From, S>& p) {
    return {reinterpret_cast<To*>(p.raw()), p.region()};
}

// Global memory as cudaMalloc gives it: 256-byte aligned, contents unspecified. Here every byte is
// 0xFF (a float reads NaN, an int -1) rather than zero, so an output a kernel forgot to write, or
// an accumulator nobody cleared, shows as it would on a GPU instead of passing by luck; fill() is
// cudaMemset. Pointers from ptr() carry the extent [data(), data() + size()).
template <class T>
class Buffer {
public:
    Buffer(std::string name, std::size_t count)
        : count_(count), mem_(static_cast<T*>(::operator new(bytes_for(count), std::align_val_t{256}))) {
        // NaN until written, a MiB at a time: a 2^26-float buffer takes a quarter of a second to
        // fill on a busy machine, and a stopped measurement (core/runtime/cancel.h) does not wait
        // for it (issue 38). A buffer left part-filled so is never read: the launch that follows
        // asks the same request before its first block and ends with "cancelled".
        auto* bytes = reinterpret_cast<unsigned char*>(mem_);
        const std::size_t total = bytes_for(count);
        for (std::size_t at = 0; at < total && !core::cancel_requested(); at += kPoisonPiece)
            std::memset(bytes + at, 0xff, std::min(kPoisonPiece, total - at));
        region_ = std::make_unique<Region>();
        region_->begin = reinterpret_cast<const std::byte*>(mem_);
        region_->end = region_->begin + count * sizeof(T);
        region_->name = std::move(name);
    }
    ~Buffer() { ::operator delete(static_cast<void*>(mem_), std::align_val_t{256}); }
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    T* data() { return mem_; }
    const T* data() const { return mem_; }
    std::size_t size() const { return count_; }
    // cudaMemset: every byte of the buffer set to `byte` (0 clears ints and floats).
    void fill(unsigned char byte) { std::memset(static_cast<void*>(mem_), byte, count_ * sizeof(T)); }
    GlobalPtr<T> ptr() { return {mem_, region_.get()}; }
    GlobalPtr<const T> cptr() const { return {mem_, region_.get()}; }
    // A pointer `offset` elements in, with the buffer's whole extent (a cudaMalloc'ed pointer + k).
    GlobalPtr<T> ptr_at(std::size_t offset) { return {mem_ + offset, region_.get()}; }

private:
    static std::size_t bytes_for(std::size_t count) { return count == 0 ? 256 : (count * sizeof(T) + 255) / 256 * 256; }
    static constexpr std::size_t kPoisonPiece = std::size_t{1} << 20;
    std::size_t count_;
    T* mem_;
    std::unique_ptr<Region> region_;
};

// [SECTION] launching

namespace detail {
Result launch(std::string_view kernel_name, const LaunchConfig& c, const Options& o, const std::function<void()>& body);
}

// Runs kernel(args...) over the grid of `c`, every CUDA thread a fiber. The arguments are converted
// to the kernel's parameter types once and copied to each thread, as a GPU passes them. Returns when
// the grid has finished or the first check has failed.
template <class... P, class... A>
Result launch(std::string_view kernel_name, const LaunchConfig& c, const Options& o, void (*kernel)(P...),
              A&&... args) {
    static_assert(sizeof...(P) == sizeof...(A), "launch: argument count differs from the kernel's parameters");
    std::tuple<std::decay_t<P>...> params(static_cast<std::decay_t<P>>(std::forward<A>(args))...);
    return detail::launch(kernel_name, c, o, [&] { std::apply(kernel, params); });
}

// [SECTION] what the device environment reads

// The built-in variables of the running CUDA thread.
struct Builtins {
    U3 thread_idx, block_idx, block_dim, grid_dim;
};

// The warp-level intrinsics the simulator implements (sim_device_env.h spells them as CUDA does).
// Collective: a warp-wide instruction with more operands than a shuffle (WarpCollective below).
enum class WarpOp { SyncWarp, Ballot, Any, All, Shfl, ShflUp, ShflDown, ShflXor, Collective };

// A warp-wide instruction that needs every one of the warp's 32 lanes and more operands per lane
// than fit a shuffle's 8 bytes: mma.sync.aligned (kernels/sim/sim_mma.h). Each lane parks with a
// pointer to its own operands (registers, on its fiber's stack); when all 32 have arrived at the
// same instruction, `run` is called once with their pointers in lane order and reads and writes
// them (gather, compute, scatter), and the lanes go on. A lane that has returned, waits at a
// barrier or at another warp operation, or a warp of fewer than 32 threads, ends the launch with a
// sentence naming the lane and `name`.
struct WarpCollective {
    const char* name;  // "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    void (*run)(void* const lanes[32]);
};

namespace detail {
// Parks the calling thread until every lane of `mask` has reached a warp operation with the same
// mask and kind, then returns the operation's result for this lane: a ballot's bits, a shuffle's
// value (as raw bits). Lanes that never arrive, or arrive at something else, end the launch with a
// sentence naming them.
uint64_t warp_op(WarpOp op, unsigned mask, uint64_t value, int arg, int width, const char* name);
// The calling lane's part in a WarpCollective (see above); returns once `op.run` has run for the warp.
void warp_collective(const WarpCollective& op, void* lane_operands);
// Set by the scheduler before it resumes a fiber. Constant-initialised and inline, so reading it
// is one TLS load (no wrapper call) in every translation unit.
inline thread_local const Builtins* t_builtins = nullptr;
void sync_threads(int line);
// __syncthreads_count(predicate): the barrier, then the number of the block's threads whose
// predicate was nonzero (__syncthreads_and / _or compare it with the block's size and 0).
int sync_threads_count(int line, int predicate);
void* dynamic_shared_pointer();  // the running block's dynamic shared memory
template <class T>
SharedPtr<T> dynamic_shared_base() {
    return {static_cast<T*>(dynamic_shared_pointer()), nullptr};
}
// A static shared array of the running block: placed after the dynamic part the first time a
// thread of the block reaches its declaration (`site` tells declarations apart), the same for every
// thread after; the block's total over 48 KiB ends the launch with a sentence. Checked and counted
// like dynamic shared memory (bounds, races, bank conflicts).
void* static_shared_pointer(std::size_t bytes, std::size_t align, const void* site, const char* name);
template <class T>
SharedPtr<T> static_shared(std::size_t count, const void* site, const char* name) {
    return {static_cast<T*>(static_shared_pointer(count * sizeof(T), alignof(T), site, name)), nullptr};
}
}  // namespace detail

inline const Builtins& builtins() { return *detail::t_builtins; }

// [SECTION] for access checks made outside the simulator (puzzles/: a student's kernel whose every
// load and store the compiler routes through a hook)

namespace detail {
struct RunningThread {
    int tid = 0;                          // linear thread index in the block
    int interval = 0;                     // barriers the block has crossed
    int64_t block = 0;                    // linear block index in the grid
    const std::byte* stack_begin = nullptr;  // the fiber's stack (its locals live here)
    std::size_t stack_bytes = 0;
};
// False outside a running kernel.
bool running_thread(RunningThread& out);
// The code address of the access being checked, or nullptr (the simulator's own kernels). A
// shared-memory race then names both accesses' sites as "{{site:0x...}}" in its message, which the
// caller turns into source lines.
inline thread_local const void* t_access_site = nullptr;
}  // namespace detail

}  // namespace gpulab::sim
