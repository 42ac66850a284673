#include "student_checks.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "puzzle_runner/device/student_abi.h"

namespace gpulab::puzzle_runner {

namespace {

using sim::detail::Fault;
using sim::detail::RunningThread;

std::string site_token(const void* site) {
    if (site == nullptr) return "";
    char text[48];
    std::snprintf(text, sizeof text, " {{site:%p}}", site);
    return text;
}

std::string u3(const sim::U3& v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

// The alignment a GPU demands of an access of `bytes`: its size, for the power-of-two sizes.
std::size_t natural_alignment(std::size_t bytes) {
    return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16 ? bytes : 1;
}

std::string count_text(std::size_t n, bool is_float) {
    return std::to_string(n) + (is_float ? (n == 1 ? " float" : " floats") : (n == 1 ? " int" : " ints"));
}

const char* const kOnGpu = "; on a GPU: cudaErrorIllegalAddress, or another buffer's data read or overwritten";

const char* verb(int kind) { return kind == GPULAB_STORE ? "writes" : kind == GPULAB_ATOMIC ? "updates atomically" : "reads"; }
const char* noun(int kind) { return kind == GPULAB_STORE ? "write" : kind == GPULAB_ATOMIC ? "atomic" : "read"; }

}  // namespace

bool StudentChecks::is_library_object(const std::byte* a, std::size_t bytes) {
    Dl_info info{};
    void* entry = nullptr;
    const bool found = dladdr1(a, &info, &entry, RTLD_DL_SYMENT) != 0;
    const auto* sym = static_cast<const ElfW(Sym)*>(entry);
    if (!found || sym == nullptr ||
        info.dli_saddr == nullptr || ELF64_ST_TYPE(sym->st_info) != STT_OBJECT) {
        return false;
    }
    const auto* begin = static_cast<const std::byte*>(info.dli_saddr);
    return a >= begin && a + bytes <= begin + sym->st_size;
}

void StudentChecks::set_library_ranges(std::vector<std::pair<const std::byte*, const std::byte*>> ranges) {
    library_ = std::move(ranges);
}

void StudentChecks::begin_launch(const std::string& kernel, std::vector<sim::Region*> buffers,
                                 std::vector<ElemInfo> elems, std::byte* shared, std::size_t shared_bytes,
                                 unsigned threads_per_block) {
    kernel_ = kernel;
    buffers_.clear();
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        Tracked t;
        t.region = buffers[i];
        t.elem = elems[i];
        const auto bytes = static_cast<std::size_t>(t.region->end - t.region->begin);
        t.written.assign(bytes, t.elem.filled ? 1 : 0);
        t.words.assign((bytes + 3) / 4, WordShadow{});
        buffers_.push_back(std::move(t));
    }
    shared_ = shared;
    shared_bytes_ = shared_bytes;
    shared_written_.assign(shared_bytes, 0);
    threads_per_block_ = std::max(1u, threads_per_block);
    block_ = -1;
    warps_ = divergent_ = 0;
    paths_.assign(threads_per_block_, 0);
    pending_.clear();
}

std::string StudentChecks::end_launch(int64_t& warps, int64_t& divergent_warps) {
    finish_block();
    warps = warps_;
    divergent_warps = divergent_;
    return std::exchange(pending_, std::string());
}

void StudentChecks::defer_uninitialised(std::string message, const RunningThread& t) {
    if (!pending_.empty()) return;
    pending_ = std::move(message);
    pending_block_ = t.block;
    pending_interval_ = t.interval;
}

void StudentChecks::raise_pending_if_interval_over(const RunningThread& t) {
    if (pending_.empty() || (t.block == pending_block_ && t.interval == pending_interval_)) return;
    throw Fault{std::exchange(pending_, std::string())};
}

void StudentChecks::finish_block() {
    if (block_ < 0) return;
    for (unsigned w0 = 0; w0 < threads_per_block_; w0 += 32) {
        const unsigned w1 = std::min(threads_per_block_, w0 + 32);
        ++warps_;
        for (unsigned t = w0 + 1; t < w1; ++t) {
            if (paths_[t] != paths_[w0]) {
                ++divergent_;
                break;
            }
        }
    }
    block_ = -1;
}

void StudentChecks::new_block_if_needed(const RunningThread& t) {
    if (t.block == block_) return;
    finish_block();
    block_ = t.block;
    std::fill(paths_.begin(), paths_.end(), 0);
    std::fill(shared_written_.begin(), shared_written_.end(), 0);
}

std::string StudentChecks::who(const RunningThread&) const {
    const sim::Builtins& b = sim::builtins();
    return "in " + kernel_ + ", thread " + u3(b.thread_idx) + " of block " + u3(b.block_idx);
}

void StudentChecks::block_entered(const void* site) {
    last_block_ = site;
    RunningThread t;
    if (!sim::detail::running_thread(t)) return;
    new_block_if_needed(t);
    uint64_t& h = paths_[static_cast<std::size_t>(t.tid)];
    h = (h ^ reinterpret_cast<std::uintptr_t>(site)) * 1099511628211ull;
}

void StudentChecks::array_index(long long index, const char* array_type, const void* site) {
    RunningThread t;
    if (!sim::detail::running_thread(t)) return;
    // 'float [4]' -> its size, for "valid: 0 to 3".
    std::string type = array_type != nullptr ? array_type : "array";
    std::string valid;
    if (const std::size_t open = type.rfind('['), close = type.rfind(']'); open != std::string::npos && close > open + 1) {
        valid = " (valid: 0 to " + std::to_string(std::stoll(type.substr(open + 1, close - open - 1)) - 1) + ")";
    }
    throw Fault{"out-of-bounds array index " + who(t) + site_token(site) + ": index " + std::to_string(index) + " of a " +
                type + " array" + valid + "; on a GPU the access lands on other data (or faults), silently"};
}

void StudentChecks::access(const void* addr, std::size_t bytes, int kind, const void* site) {
    RunningThread t;
    if (!sim::detail::running_thread(t)) return;  // the shared object's own start-up, before any launch
    raise_pending_if_interval_over(t);
    new_block_if_needed(t);
    sim::detail::t_access_site = site;
    const auto* a = static_cast<const std::byte*>(addr);
    for (Tracked& b : buffers_) {
        if (a >= b.region->begin && a < b.region->end) {
            check_global(b, a, bytes, kind, site, t);
            return;
        }
    }
    if (shared_bytes_ > 0 && a >= shared_ && a < shared_ + shared_bytes_) {
        check_shared(a, bytes, kind, t);
        return;
    }
    if (a >= t.stack_begin && a + bytes <= t.stack_begin + t.stack_bytes) return;  // a local
    // Just past (or before) the shared arrays is still the kernel's shared object, whose data the
    // next check lets through: an index one past a __shared__ array must be out of bounds first.
    // (A file-scope __device__ variable that the linker put right after them is the kernel's own:
    // the shared object's symbol table tells it apart.)
    if (shared_bytes_ > 0 && a + 4096 >= shared_ && a < shared_ + shared_bytes_ + 4096 && !is_library_object(a, bytes)) {
        sim::detail::shared_access(addr, bytes, 1, kind != GPULAB_LOAD);  // says it, with the offset
    }
    for (const auto& [lo, hi] : library_)
        if (a >= lo && a + bytes <= hi) return;  // the kernel's constants and globals
    out_of_bounds(addr, bytes, kind, t);
}

void StudentChecks::check_global(Tracked& b, const std::byte* a, std::size_t bytes, int kind, const void* site,
                                 const RunningThread& t) {
    const std::size_t offset = static_cast<std::size_t>(a - b.region->begin);
    const std::size_t size = static_cast<std::size_t>(b.region->end - b.region->begin);
    const std::string element = b.region->name + "[" + std::to_string(offset / 4) + "]";
    const std::string extent = "'" + b.region->name + "' (" + count_text(size / 4, b.elem.is_float) + ")";
    if (offset + bytes > size) {
        throw Fault{std::string("out-of-bounds global ") + noun(kind) + " " + who(t) + site_token(site) + ": " +
                    verb(kind) + " " + std::to_string(bytes) + " bytes at " + element + ", running past the end of " +
                    extent + kOnGpu};
    }
    if (reinterpret_cast<std::uintptr_t>(a) % natural_alignment(bytes) != 0) {
        throw Fault{std::string("misaligned global ") + noun(kind) + " " + who(t) + site_token(site) + ": " +
                    verb(kind) + " " + std::to_string(bytes) + " bytes at byte " + std::to_string(offset) + " of " +
                    extent + ", not a multiple of " + std::to_string(natural_alignment(bytes)) +
                    "; on a GPU: cudaErrorMisalignedAddress"};
    }
    if (kind != GPULAB_STORE) {
        for (std::size_t i = 0; i < bytes; ++i) {
            if (b.written[offset + i] == 0) {
                defer_uninitialised("uninitialised global " + std::string(noun(kind)) + " " + who(t) + site_token(site) +
                                        ": " + verb(kind) + " " + element + ", which nothing wrote before: device memory "
                                        "is not cleared, so on a GPU this reads whatever the memory held (here 0xFF "
                                        "bytes, NaN as a float)",
                                    t);
                break;
            }
        }
    }
    // Races: two threads, one word, at least one write, not both atomic, and no barrier between
    // them (a barrier orders the threads of one block only; blocks are never ordered in a launch).
    const int32_t me = static_cast<int32_t>(t.block * threads_per_block_ + static_cast<int64_t>(t.tid));
    const auto ordered = [&](int32_t other, int32_t interval) {
        return other == me || (other / static_cast<int32_t>(threads_per_block_) == t.block && interval < t.interval);
    };
    const auto thread_name = [&](int32_t g) {
        const int64_t blk = g / threads_per_block_, tid = g % threads_per_block_;
        const sim::Builtins& cur = sim::builtins();
        const sim::U3 bd = cur.block_dim, gd = cur.grid_dim;
        const sim::U3 ti{static_cast<unsigned>(tid % bd.x), static_cast<unsigned>((tid / bd.x) % bd.y),
                         static_cast<unsigned>(tid / (bd.x * bd.y))};
        const sim::U3 bi{static_cast<unsigned>(blk % gd.x), static_cast<unsigned>((blk / gd.x) % gd.y),
                         static_cast<unsigned>(blk / (int64_t{gd.x} * gd.y))};
        return "thread " + u3(ti) + " of block " + u3(bi);
    };
    for (std::size_t w = offset / 4; w <= (offset + bytes - 1) / 4; ++w) {
        WordShadow& s = b.words[w];
        const auto check = [&](const Access& other, const char* then) {
            if (other.thread < 0 || ordered(other.thread, other.interval)) return;
            const bool same_block = other.thread / static_cast<int32_t>(threads_per_block_) == t.block;
            // Two writes of one element are a mistake of who owns it, not of order: say so.
            const bool both_write = kind != GPULAB_LOAD && std::string(then) != "read";
            const std::string hint =
                both_write ? "; two threads write one element: give each thread its own element, or combine with an atomic"
                : same_block ? "; a __syncthreads() between the two would order them"
                             : "; threads of different blocks are never ordered within one launch";
            throw Fault{"global-memory race " + who(t) + site_token(site) + ": " + verb(kind) + " " + element +
                        ", which " + thread_name(other.thread) + site_token(other.site) + " " + then +
                        (same_block ? " in the same barrier interval" : " (another block)") +
                        ", so the result depends on which runs first" + hint};
        };
        // Two atomics never race; anything else with a write in it does.
        check(s.write, "wrote");
        if (kind != GPULAB_ATOMIC) check(s.atomic, "updated atomically");
        if (kind != GPULAB_LOAD) check(s.read, "read");
        const Access now{me, t.interval, site};
        if (kind == GPULAB_LOAD) s.read = now;
        else if (kind == GPULAB_STORE) s.write = now;
        else s.atomic = now;
    }
    if (kind != GPULAB_LOAD) std::memset(b.written.data() + offset, 1, bytes);
    if (sim::detail::t_count_global) sim::detail::log_global(a, bytes, b.region, kind != GPULAB_LOAD);
}

void StudentChecks::check_shared(const std::byte* a, std::size_t bytes, int kind, const RunningThread& t) {
    const std::size_t offset = static_cast<std::size_t>(a - shared_);
    if (offset + bytes <= shared_bytes_ && kind != GPULAB_STORE) {
        for (std::size_t i = 0; i < bytes; ++i) {
            if (shared_written_[offset + i] == 0) {
                defer_uninitialised("uninitialised shared " + std::string(noun(kind)) + " " + who(t) +
                                        site_token(sim::detail::t_access_site) + ": " + verb(kind) + " shared byte " +
                                        std::to_string(offset) + ", which no thread of this block wrote before: shared "
                                        "memory starts with whatever the last block left there",
                                    t);
                break;
            }
        }
    }
    if (kind == GPULAB_ATOMIC) {
        // The simulator's race shadow has no atomics: an atomic is bounds-checked only.
        if (offset + bytes > shared_bytes_) sim::detail::shared_access(a, bytes, natural_alignment(bytes), true);
    } else {
        sim::detail::shared_access(a, bytes, natural_alignment(bytes), kind == GPULAB_STORE);
    }
    if (kind != GPULAB_LOAD && offset + bytes <= shared_bytes_) std::memset(shared_written_.data() + offset, 1, bytes);
}

void StudentChecks::out_of_bounds(const void* addr, std::size_t bytes, int kind, const RunningThread& t) {
    const auto* a = static_cast<const std::byte*>(addr);
    const void* site = sim::detail::t_access_site;
    // The nearest buffer, to say "a[-1]" or "a[1024]" rather than an address.
    const Tracked* nearest = nullptr;
    std::ptrdiff_t best = 0;
    for (const Tracked& b : buffers_) {
        const std::ptrdiff_t d = a < b.region->begin ? b.region->begin - a : a - b.region->end;
        if (nearest == nullptr || d < best) {
            nearest = &b;
            best = d;
        }
    }
    const std::ptrdiff_t shared_distance =
        shared_bytes_ == 0 ? -1 : (a < shared_ ? shared_ - a : a - (shared_ + shared_bytes_));
    if (shared_distance >= 0 && shared_distance < 4096 && (nearest == nullptr || shared_distance < best)) {
        sim::detail::shared_access(addr, bytes, natural_alignment(bytes), kind != GPULAB_LOAD);  // says it
    }
    if (nearest != nullptr && best < (1 << 20)) {
        const std::ptrdiff_t offset = a - nearest->region->begin;
        const std::ptrdiff_t index = offset >= 0 ? offset / 4 : -((-offset + 3) / 4);
        const auto size = (nearest->region->end - nearest->region->begin) / 4;
        throw Fault{std::string("out-of-bounds global ") + noun(kind) + " " + who(t) + site_token(site) + ": " +
                    verb(kind) + " " + nearest->region->name + "[" + std::to_string(index) + "], " +
                    (index < 0 ? "before the start" : "past the end") + " of '" + nearest->region->name + "' (" +
                    count_text(static_cast<std::size_t>(size), nearest->elem.is_float) + ")" + kOnGpu};
    }
    char where[32];
    std::snprintf(where, sizeof where, "%p", addr);
    throw Fault{std::string("out-of-bounds ") + noun(kind) + " " + who(t) + site_token(site) + ": " + verb(kind) + " " +
                std::to_string(bytes) + " bytes at address " + where +
                ", which is in no buffer the kernel was given, its shared memory or its own stack (a pointer that "
                "was never set, or one computed from the wrong base)"};
}

}  // namespace gpulab::puzzle_runner
