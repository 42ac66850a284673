// The checks behind every load and store of a student's kernel: the compiler routes each access
// through a hook (device/student_cuda.h), which lands here with the address, size and code site.
// An access is classified by address: a buffer the host gave the kernel (bounds, alignment, bytes
// never written, races between threads that no barrier orders), the block's shared memory (handed
// to the simulator's own shared-memory checks, plus bytes never written), the thread's stack
// (locals: free), the kernel's own shared object: its writable data (file-scope __device__ and
// function-local static variables, one copy for the whole grid) checked for races between threads
// and named by its symbol, its constants and string literals free; anything else is out of bounds,
// said against the nearest buffer. A defect ends the launch with a sentence
// (sim::detail::Fault) whose code sites are "{{site:0x...}}" tokens the parent turns into lines.
// Also counts branch divergence: each thread's sequence of basic blocks, compared per warp.
// One launch at a time, on one OS thread. Verified by tests/test_puzzles.cpp (a broken kernel per
// defect class).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "puzzles/kernel_job.h"
#include "sim/sim_runtime.h"

namespace gpulab::puzzle_runner {

// What the checks know of a buffer besides its extent.
struct ElemInfo {
    bool is_float = true;   // float or int, 4 bytes each (for "a[1000]" and "1000 floats")
    bool filled = false;    // the host wrote it before the launch
};

class StudentChecks {
public:
    // The kernel's shared object's mapped ranges (its code, data and constants). Its writable ones
    // (the variables) are race-checked; their names come from the object's symbol table (read from
    // its file, which must still be readable here).
    void set_library_ranges(std::vector<std::pair<const std::byte*, const std::byte*>> ranges);
    // Before each launch: the case's buffers (the runner owns their memory), its shared window.
    void begin_launch(const std::string& kernel, std::vector<sim::Region*> buffers, std::vector<ElemInfo> elems,
                      std::byte* shared, std::size_t shared_bytes, unsigned threads_per_block);
    // After it: divergence counts (warps that ran, warps whose lanes took different paths), and a
    // read of never-written memory still pending when the launch ended ("" when none).
    std::string end_launch(int64_t& warps, int64_t& divergent_warps);

    void access(const void* addr, std::size_t bytes, int kind, const void* site);
    void block_entered(const void* site);
    // An index outside an array of known size ('float [4]'), from the compiler's bounds check.
    void array_index(long long index, const char* array_type, const void* site);
    // The code address of the last basic block entered (for a kernel stopped in a loop).
    const void* last_block_site() const { return last_block_; }

private:
    // Per 4-byte word: the last plain write, the last atomic update and the last plain read, each
    // with its thread (block * threads_per_block + thread), barrier interval and code site. Kept
    // apart so that a plain write followed by the same thread's atomic still races with another
    // thread's atomic.
    struct Access {
        int32_t thread = -1;
        int32_t interval = 0;
        const void* site = nullptr;
    };
    struct WordShadow {
        Access write, atomic, read;
    };
    struct Tracked {
        sim::Region* region = nullptr;
        ElemInfo elem;
        std::vector<uint8_t> written;   // per byte: stored (or filled by the host)
        std::vector<WordShadow> words;  // per 4-byte word
    };
    void new_block_if_needed(const sim::detail::RunningThread& t);
    // A read of bytes nobody has written yet is only known to be uninitialised once its barrier
    // interval is over: the simulator runs a block's threads one after another, so a neighbour's
    // write later in the same interval makes it a race instead (reported at that write).
    void defer_uninitialised(std::string message, const sim::detail::RunningThread& t);
    void raise_pending_if_interval_over(const sim::detail::RunningThread& t);
    void finish_block();
    [[noreturn]] void out_of_bounds(const void* addr, std::size_t bytes, int kind, const sim::detail::RunningThread& t);
    void check_global(Tracked& b, const std::byte* a, std::size_t bytes, int kind, const void* site,
                      const sim::detail::RunningThread& t);
    void check_shared(const std::byte* a, std::size_t bytes, int kind, const sim::detail::RunningThread& t);
    // A variable of the kernel's shared object (a __device__ or static variable): races only.
    void check_variable(const std::byte* a, std::size_t bytes, int kind, const void* site,
                        const sim::detail::RunningThread& t);
    // One 4-byte word's race check and update; a buffer's word is named by `buffer_element`
    // ("out[3]"), a variable's (`variable`: the access's address) by its symbol, in a message only.
    void check_word(WordShadow& s, int kind, const void* site, const sim::detail::RunningThread& t,
                    const std::string& buffer_element, const std::byte* variable, std::size_t bytes);
    // The variable of the kernel's shared object at `a`, as words for a message.
    std::string variable_name(const std::byte* a, std::size_t bytes) const;
    void read_symbols();
    std::string who(const sim::detail::RunningThread& t) const;
    // Inside a variable of the kernel's shared object that its dynamic symbol table names (a
    // file-scope __device__ variable).
    static bool is_library_object(const std::byte* a, std::size_t bytes);

    std::string kernel_;
    std::vector<Tracked> buffers_;
    std::vector<std::pair<const std::byte*, const std::byte*>> library_;
    std::vector<std::pair<const std::byte*, const std::byte*>> writable_;  // the variables' segments
    struct Variable {
        const std::byte* begin = nullptr;
        std::size_t size = 0;
        std::string name;  // "acc", or "block_sum(float const*, float*, int)::sum" for a static local
    };
    std::vector<Variable> variables_;                           // sorted by address
    std::unordered_map<std::uintptr_t, WordShadow> variable_words_;  // per 4-byte word touched
    std::byte* shared_ = nullptr;
    std::size_t shared_bytes_ = 0;
    std::vector<uint8_t> shared_written_;
    unsigned threads_per_block_ = 1;
    int64_t block_ = -1;
    std::string pending_;             // the first deferred uninitialised read
    int64_t pending_block_ = -1;
    int pending_interval_ = -1;
    std::vector<uint64_t> paths_;  // per thread of the running block: a hash of its basic blocks
    int64_t warps_ = 0, divergent_ = 0;
    const void* last_block_ = nullptr;
};

}  // namespace gpulab::puzzle_runner
