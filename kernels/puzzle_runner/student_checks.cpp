#include "student_checks.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "puzzle_runner/device/student_abi.h"
#include "puzzles/block_order.h"

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

// Appends rather than `"(" + std::to_string(...)`, which trips GCC 12's false -Wrestrict warning.
std::string u3(const sim::U3& v) {
    std::string s = "(";
    s.append(std::to_string(v.x)).append(",").append(std::to_string(v.y)).append(",");
    return s.append(std::to_string(v.z)).append(")");
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
    writable_.clear();
    variables_.clear();
    if (library_.empty()) return;
    // The object's writable segments: its variables (and the static __shared__ section, which
    // access() tells apart first).
    struct Find {
        const std::byte* inside;
        std::vector<std::pair<const std::byte*, const std::byte*>>* out;
    } find{library_.front().first, &writable_};
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
            auto* f = static_cast<Find*>(data);
            bool mine = false;
            for (int i = 0; i < info->dlpi_phnum && !mine; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                const auto* lo = reinterpret_cast<const std::byte*>(info->dlpi_addr + ph.p_vaddr);
                mine = ph.p_type == PT_LOAD && f->inside >= lo && f->inside < lo + ph.p_memsz;
            }
            if (!mine) return 0;
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W) == 0) continue;
                const auto* lo = reinterpret_cast<const std::byte*>(info->dlpi_addr + ph.p_vaddr);
                f->out->push_back({lo, lo + ph.p_memsz});
            }
            return 1;
        },
        &find);
    read_symbols();
}

// The names of the object's variables, from the symbol table of its file: a function-local static
// or a `static` file-scope variable is a local symbol, which the dynamic symbol table (dladdr) lacks.
void StudentChecks::read_symbols() {
    Dl_info info{};
    if (dladdr(library_.front().first, &info) == 0 || info.dli_fname == nullptr || info.dli_fbase == nullptr) return;
    std::ifstream in(info.dli_fname, std::ios::binary);
    const std::vector<char> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto fits = [&](std::size_t offset, std::size_t bytes) { return offset <= file.size() && bytes <= file.size() - offset; };
    if (!fits(0, sizeof(ElfW(Ehdr))) || std::memcmp(file.data(), ELFMAG, SELFMAG) != 0) return;
    ElfW(Ehdr) eh;
    std::memcpy(&eh, file.data(), sizeof eh);
    if (eh.e_shentsize != sizeof(ElfW(Shdr)) || !fits(eh.e_shoff, std::size_t{eh.e_shnum} * sizeof(ElfW(Shdr)))) return;
    const auto section = [&](std::size_t i) {
        ElfW(Shdr) sh;
        std::memcpy(&sh, file.data() + eh.e_shoff + i * sizeof sh, sizeof sh);
        return sh;
    };
    const auto* base = static_cast<const std::byte*>(info.dli_fbase);
    for (std::size_t i = 0; i < eh.e_shnum; ++i) {
        const ElfW(Shdr) sym = section(i);
        if (sym.sh_type != SHT_SYMTAB || sym.sh_link >= eh.e_shnum || sym.sh_entsize != sizeof(ElfW(Sym))) continue;
        const ElfW(Shdr) str = section(sym.sh_link);
        if (!fits(sym.sh_offset, sym.sh_size) || !fits(str.sh_offset, str.sh_size)) continue;
        for (std::size_t k = 0; k < sym.sh_size / sizeof(ElfW(Sym)); ++k) {
            ElfW(Sym) e;
            std::memcpy(&e, file.data() + sym.sh_offset + k * sizeof e, sizeof e);
            if (ELF64_ST_TYPE(e.st_info) != STT_OBJECT || e.st_size == 0 || e.st_name >= str.sh_size) continue;
            const char* raw = file.data() + str.sh_offset + e.st_name;
            if (std::memchr(raw, '\0', str.sh_size - e.st_name) == nullptr) continue;
            Variable v;
            v.begin = base + e.st_value;
            v.size = e.st_size;
            bool writable = false;
            for (const auto& [lo, hi] : writable_) writable = writable || (v.begin >= lo && v.begin + v.size <= hi);
            if (!writable) continue;
            int status = 0;
            char* demangled = abi::__cxa_demangle(raw, nullptr, nullptr, &status);
            v.name = status == 0 && demangled != nullptr ? demangled : raw;
            std::free(demangled);
            variables_.push_back(std::move(v));
        }
    }
    std::sort(variables_.begin(), variables_.end(), [](const Variable& a, const Variable& b) { return a.begin < b.begin; });
}

std::string StudentChecks::variable_name(const std::byte* a, std::size_t bytes) const {
    auto it = std::upper_bound(variables_.begin(), variables_.end(), a,
                               [](const std::byte* x, const Variable& v) { return x < v.begin; });
    if (it == variables_.begin() || a >= std::prev(it)->begin + std::prev(it)->size) {
        char where[32];
        std::snprintf(where, sizeof where, "%p", static_cast<const void*>(a));
        return "a variable of the kernel at " + std::string(where);
    }
    const Variable& v = *std::prev(it);
    // An element of an array variable by the access's size (a float array read as floats).
    const std::string index = v.size > bytes && bytes > 0 ? "[" + std::to_string((a - v.begin) / static_cast<std::ptrdiff_t>(bytes)) + "]" : "";
    // "block_sum(float const*, float*, int)::sum": a static variable of a function.
    if (const std::size_t scope = v.name.rfind(")::"); scope != std::string::npos) {
        const std::string function = v.name.substr(0, v.name.find('('));
        return "the static variable '" + v.name.substr(scope + 3) + index + "' of " + function + "()";
    }
    return "the __device__ variable '" + v.name + index + "'";
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
    variable_words_.clear();
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
    for (const auto& [lo, hi] : writable_) {
        if (a >= lo && a + bytes <= hi) {
            check_variable(a, bytes, kind, site, t);  // a __device__ or static variable
            return;
        }
    }
    for (const auto& [lo, hi] : library_)
        if (a >= lo && a + bytes <= hi) return;  // the kernel's constants and string literals
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
    for (std::size_t w = offset / 4; w <= (offset + bytes - 1) / 4; ++w) check_word(b.words[w], kind, site, t, element, nullptr, bytes);
    if (kind != GPULAB_LOAD) std::memset(b.written.data() + offset, 1, bytes);
    if (sim::detail::t_count_global) sim::detail::log_global(a, bytes, b.region, kind != GPULAB_LOAD);
}

void StudentChecks::check_variable(const std::byte* a, std::size_t bytes, int kind, const void* site,
                                   const RunningThread& t) {
    // (Named only in a message: a __constant__ table read in a loop costs a lookup per read.)
    const auto first = reinterpret_cast<std::uintptr_t>(a) / 4, last = (reinterpret_cast<std::uintptr_t>(a) + bytes - 1) / 4;
    for (std::uintptr_t w = first; w <= last; ++w) check_word(variable_words_[w], kind, site, t, std::string(), a, bytes);
}

// Races: two threads, one word, at least one write, not both atomic, and no barrier between them (a
// barrier orders the threads of one block only; blocks are never ordered in a launch).
void StudentChecks::check_word(WordShadow& s, int kind, const void* site, const RunningThread& t,
                               const std::string& buffer_element, const std::byte* variable, std::size_t bytes) {
    const bool shared_by_grid = variable != nullptr;
    const int32_t me = static_cast<int32_t>(t.block * threads_per_block_ + static_cast<int64_t>(t.tid));
    const auto ordered = [&](int32_t other, int32_t interval) {
        return other == me || (other / static_cast<int32_t>(threads_per_block_) == t.block && interval < t.interval);
    };
    const sim::Builtins& cur = sim::builtins();
    const sim::U3 bd = cur.block_dim, gd = cur.grid_dim;
    const auto thread_name = [&](int32_t g) {
        const int64_t blk = g / threads_per_block_, tid = g % threads_per_block_;
        const sim::U3 ti{static_cast<unsigned>(tid % bd.x), static_cast<unsigned>((tid / bd.x) % bd.y),
                         static_cast<unsigned>(tid / (bd.x * bd.y))};
        const sim::U3 bi{static_cast<unsigned>(blk % gd.x), static_cast<unsigned>((blk / gd.x) % gd.y),
                         static_cast<unsigned>(blk / (int64_t{gd.x} * gd.y))};
        return "thread " + u3(ti) + " of block " + u3(bi);
    };
    const auto check = [&](const Access& other, const char* then) {
        if (other.thread < 0 || ordered(other.thread, other.interval)) return;
        const bool same_block = other.thread / static_cast<int32_t>(threads_per_block_) == t.block;
        // Two writes of one element are a mistake of who owns it, not of order: say so.
        const bool both_write = kind != GPULAB_LOAD && std::string(then) != "read";
        // Which pair of blocks meets first depends on the order they ran in.
        const std::string order = same_block ? "" : "; " + puzzles::block_order_note(int64_t{gd.x} * gd.y * gd.z);
        const std::string hint =
            shared_by_grid && !same_block
                ? "; a __device__ or static variable is one copy for the whole grid, and threads of different blocks "
                  "are never ordered within one launch: give each block its own element of a buffer, or combine "
                  "with an atomic"
            : both_write ? "; two threads write one element: give each thread its own element, or combine with an atomic"
            : same_block ? "; a __syncthreads() between the two would order them"
                         : "; threads of different blocks are never ordered within one launch";
        const std::string element = shared_by_grid ? variable_name(variable, bytes) : buffer_element;
        throw Fault{"global-memory race " + who(t) + site_token(site) + ": " + verb(kind) + " " + element +
                    ", which " + thread_name(other.thread) + site_token(other.site) + " " + then +
                    (same_block ? " in the same barrier interval" : " (another block)") +
                    ", so the result depends on which runs first" + hint + order};
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
