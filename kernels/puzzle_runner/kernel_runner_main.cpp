// gpulab-kernel-runner JOB_FOLDER: runs a student's compiled kernel (a shared object built against
// device/student_cuda.h) in the SIMT simulator, every access checked (student_checks.h), the
// process confined (runner_sandbox.h), the report written to descriptor 3 as each case finishes
// (puzzles/kernel_job.h). The app and `gpulab puzzle check` start it as a child with a time limit;
// the student's printf goes to its stdout. Exit status: 0 done, 2 bad job, 3 timed out, 4 could not
// load or confine, 5 a forbidden system call.
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <new>
#include <memory>
#include <string>
#include <vector>

#include "puzzle_runner/device/student_abi.h"
#include "puzzles/block_order.h"
#include "puzzles/kernel_job.h"
#include "runner_sandbox.h"
#include "sim/sim_runtime.h"
#include "student_checks.h"

#if defined(__SANITIZE_ADDRESS__)
// Under AddressSanitizer (CI's sanitizer build runs the puzzle tests through this runner): no leak
// check at exit (it starts a thread, which the confinement forbids), and an allocation over 2 GiB
// fails (returns null, or new throws) as the address-space limit makes it without ASan.
extern "C" const char* __asan_default_options() {
    return "detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=2048";
}
#endif

namespace {

using namespace gpulab;
using puzzle_runner::kReportFd;

puzzle_runner::StudentChecks g_checks;
std::vector<std::pair<const std::byte*, const std::byte*>> g_library;

void report(const std::string& text) {
    const char* p = text.data();
    std::size_t n = text.size();
    while (n > 0) {
        const ssize_t w = write(kReportFd, p, n);
        if (w <= 0) return;
        p += w;
        n -= static_cast<std::size_t>(w);
    }
}

// [SECTION] the runtime the kernel calls (device/student_abi.h)

static_assert(sizeof(gpulab_builtins_abi) == sizeof(sim::Builtins), "the ABI mirrors sim::Builtins");

void abi_access(const void* addr, unsigned long bytes, int kind, const void* site) {
    g_checks.access(addr, bytes, kind, site);
}
void abi_block_entered(const void* site) { g_checks.block_entered(site); }
void abi_sync_threads(int line) { sim::detail::sync_threads(line); }
int abi_sync_threads_count(int line, int predicate) { return sim::detail::sync_threads_count(line, predicate); }
unsigned long long abi_warp_op(int op, unsigned mask, unsigned long long value, int arg, int width, const char* name,
                               const void* site) {
    sim::detail::t_access_site = site;
    return sim::detail::warp_op(static_cast<sim::WarpOp>(op), mask, value, arg, width, name);
}
void abi_array_index(long long index, const char* array_type, const void* site) {
    g_checks.array_index(index, array_type, site);
}
void abi_refuse(const char* why, const void* site) {
    char token[48];
    std::snprintf(token, sizeof token, " {{site:%p}}", site);
    sim::detail::refuse(why + std::string(token));
}

// [SECTION] a kernel that does not finish

std::string u3(const sim::U3& v) {
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

bool in_library(std::uintptr_t pc) {
    for (const auto& [lo, hi] : g_library)
        if (pc >= reinterpret_cast<std::uintptr_t>(lo) && pc < reinterpret_cast<std::uintptr_t>(hi)) return true;
    return false;
}

// Where the kernel was when a signal stopped it: the running thread, and a code site. A crash
// names the interrupted instruction when it lies in the kernel (the faulting line itself), else
// (inside a check) the last basic block the kernel entered. The time limit always prefers that
// block: an alarm can land on any instruction of a loop, including PLT stubs and glue that have
// no source line, so the interrupted instruction made the timeout's line come and go (issue 38).
struct StoppedAt {
    std::string where;
    std::uintptr_t site = 0;
};
StoppedAt stopped_at(void* context, bool prefer_block) {
    const auto* uc = static_cast<const ucontext_t*>(context);
    const auto pc = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
    const auto block = reinterpret_cast<std::uintptr_t>(g_checks.last_block_site());
    StoppedAt at;
    at.site = prefer_block && block != 0 ? block : in_library(pc) ? pc + 1 : block;
    if (sim::detail::t_builtins != nullptr) {
        at.where = "block " + u3(sim::detail::t_builtins->block_idx) + " thread " + u3(sim::detail::t_builtins->thread_idx);
    }
    std::fflush(stdout);
    return at;
}

// The time limit: say which thread was where, then end.
void on_alarm(int, siginfo_t*, void* context) {
    const StoppedAt at = stopped_at(context, true);
    report(puzzles::report_line_timeout(at.where, at.site));
    _exit(3);
}

// A signal from the kernel's own arithmetic or an access the checks did not see (an integer
// division by zero is SIGFPE): say which thread, where, and end. The simulator's stack-overflow
// handler, installed at the first launch, passes the faults that are not its own on to this one.
void on_crash(int sig, siginfo_t*, void* context) {
    const StoppedAt at = stopped_at(context, false);
    report(puzzles::report_line_crash(sig, at.where, at.site));
    _exit(6);
}

#if !defined(__SANITIZE_ADDRESS__)  // (under AddressSanitizer its own report of a crash is more useful)
void install_crash_report() {
    struct sigaction sa {};
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGFPE, SIGILL, SIGBUS, SIGSEGV}) sigaction(sig, &sa, nullptr);
}
#endif

// [SECTION] loading the kernel

struct Library {
    void* handle = nullptr;
    void (*launch)(void* const*) = nullptr;
    std::byte* shared = nullptr;
    std::size_t shared_bytes = 0;
    std::uintptr_t base = 0;
};

int collect_segments(dl_phdr_info* info, std::size_t, void* data) {
    auto* want = static_cast<const std::uintptr_t*>(data);
    if (info->dlpi_addr != *want) return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD) continue;
        const auto* lo = reinterpret_cast<const std::byte*>(info->dlpi_addr + ph.p_vaddr);
        g_library.push_back({lo, lo + ph.p_memsz});
    }
    return 1;
}

std::string load(const std::string& path, Library& lib, const gpulab_runtime_abi* rt) {
    lib.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle == nullptr) return std::string("the compiled kernel could not be loaded: ") + dlerror();
    auto abi = reinterpret_cast<int (*)()>(dlsym(lib.handle, "gpulab_student_abi"));
    auto bind = reinterpret_cast<void (*)(const gpulab_runtime_abi*)>(dlsym(lib.handle, "gpulab_bind"));
    auto window = reinterpret_cast<void (*)(char**, unsigned long*)>(dlsym(lib.handle, "gpulab_shared_window"));
    lib.launch = reinterpret_cast<void (*)(void* const*)>(dlsym(lib.handle, "gpulab_launch"));
    if (abi == nullptr || bind == nullptr || window == nullptr || lib.launch == nullptr) {
        return "the compiled kernel was not built against gpulab's student_cuda.h";
    }
    auto page = reinterpret_cast<void* (*)()>(dlsym(lib.handle, "gpulab_runtime_page"));
    if (abi() != GPULAB_STUDENT_ABI || page == nullptr) return "the compiled kernel was built by another version of gpulab: compile it again";
    bind(rt);
    // Read-only from here on (student_cuda.h: the runtime's address is alone on its page).
    if (mprotect(page(), 4096, PROT_READ) != 0) return "could not protect the kernel's link to its checks (mprotect)";
    char* begin = nullptr;
    unsigned long bytes = 0;
    window(&begin, &bytes);
    lib.shared = reinterpret_cast<std::byte*>(begin);
    lib.shared_bytes = bytes;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(bind), &info) != 0) lib.base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    dl_iterate_phdr(collect_segments, &lib.base);
    return "";
}

// [SECTION] one case

// A buffer as cudaMalloc gives it (256-byte aligned, 0xFF bytes where the host wrote nothing), with
// unused memory on both sides at least as large as itself: an index that runs past one buffer lands
// in no buffer, and is said as this buffer's overflow, rather than in the next buffer, where it
// would read or race on that buffer's elements.
class PaddedBuffer {
public:
    PaddedBuffer(std::string name, std::size_t bytes)
        : bytes_(bytes), pad_(std::max<std::size_t>(64 * 1024, (bytes + 255) / 256 * 256)),
          storage_(static_cast<std::byte*>(::operator new(2 * pad_ + bytes, std::align_val_t{256}))) {
        std::memset(storage_, 0xff, 2 * pad_ + bytes);
        region.begin = storage_ + pad_;
        region.end = region.begin + bytes;
        region.name = std::move(name);
    }
    ~PaddedBuffer() { ::operator delete(storage_, std::align_val_t{256}); }
    PaddedBuffer(const PaddedBuffer&) = delete;
    PaddedBuffer& operator=(const PaddedBuffer&) = delete;
    std::byte* data() { return storage_ + pad_; }
    std::size_t size() const { return bytes_; }
    sim::Region region;

private:
    std::size_t bytes_, pad_;
    std::byte* storage_;
};

puzzles::CaseReport run_case(const puzzles::KernelJob& job, const puzzles::JobCase& k, const Library& lib, bool trace) {
    puzzles::CaseReport rep;
    std::vector<std::unique_ptr<PaddedBuffer>> memory;
    std::vector<sim::Region*> regions;
    std::vector<puzzle_runner::ElemInfo> elems;
    for (const puzzles::JobBuffer& b : k.buffers) {
        memory.push_back(std::make_unique<PaddedBuffer>(b.name, static_cast<std::size_t>(b.count) * 4));
        if (b.filled) std::memcpy(memory.back()->data(), b.data.data(), b.data.size());
        regions.push_back(&memory.back()->region);
        elems.push_back({b.elem == puzzles::ElemType::F32, b.filled});
    }
    // Arguments as the kernel's parameters: pointers, ints, floats (the generated launcher casts).
    struct Slot {
        void* ptr;
        int i;
        float f;
    };
    std::vector<Slot> slots(k.args.size());
    std::vector<void*> args(k.args.size());
    for (std::size_t i = 0; i < k.args.size(); ++i) {
        const puzzles::JobArg& a = k.args[i];
        if (a.kind == puzzles::JobArg::Kind::Buffer) {
            slots[i].ptr = memory[static_cast<std::size_t>(a.buffer)]->data();
            args[i] = &slots[i].ptr;
        } else if (a.kind == puzzles::JobArg::Kind::Int) {
            slots[i].i = static_cast<int>(a.i);
            args[i] = &slots[i].i;
        } else {
            slots[i].f = static_cast<float>(a.f);
            args[i] = &slots[i].f;
        }
    }
    sim::LaunchConfig cfg;
    cfg.grid = {k.grid[0], k.grid[1], k.grid[2]};
    cfg.block = {k.block[0], k.block[1], k.block[2]};
    sim::Options o;
    o.parallel = false;
    o.block_order_seed = puzzles::kBlockOrderSeed;  // a shuffled order, the same every run
    o.count_bank_conflicts = true;
    o.count_global_sectors = true;
    o.shared_window = lib.shared;
    o.shared_window_bytes = lib.shared_bytes;
    g_checks.begin_launch(job.kernel, regions, elems, lib.shared, lib.shared_bytes, k.block[0] * k.block[1] * k.block[2]);
    sim::Result r = sim::detail::launch(job.kernel, cfg, o, [&] { lib.launch(args.data()); });
    const std::string pending = g_checks.end_launch(rep.warps, rep.divergent_warps);
    if (r.ok && !pending.empty()) {
        r.ok = false;
        r.error = pending;
    }
    std::fflush(stdout);
    rep.finished = true;
    rep.clean = r.ok;
    rep.message = r.error;
    if (!r.ok) {
        rep.kind = puzzles::classify_simulator_message(r.error);
        if (r.error.find("bad_alloc") != std::string::npos) {
            rep.kind = puzzles::DefectKind::MemoryLimit;
            rep.message = "the kernel asked for more memory than a kernel run may use (2 GiB of address space): "
                          "new or malloc of a huge array inside a kernel";
        }
    }
    rep.threads = r.stats.threads;
    rep.blocks = r.stats.blocks;
    rep.barriers = r.stats.block_barriers;
    rep.shared_requests = r.stats.shared_requests;
    rep.shared_wavefronts = r.stats.shared_wavefronts;
    rep.global_requests = r.stats.global_requests;
    rep.global_sectors = r.stats.global_sectors;
    rep.global_bytes = r.stats.global_bytes;
    rep.wall_ns = r.stats.wall_ns;
    rep.outputs.resize(k.buffers.size());
    for (std::size_t b = 0; b < k.buffers.size(); ++b) {
        if (!k.buffers[b].output) continue;
        const std::byte* p = memory[b]->data();
        rep.outputs[b].assign(p, p + memory[b]->size());
    }
    if (trace) {
        // Also after a defect: the picture then shows what the block did up to it.
        // Who touched what, in block (0,0,0): a second run of that block only, for the picture.
        for (std::size_t b = 0; b < k.buffers.size(); ++b) {
            if (k.buffers[b].filled) std::memcpy(memory[b]->data(), k.buffers[b].data.data(), k.buffers[b].data.size());
            else std::memset(memory[b]->data(), 0xff, memory[b]->size());
        }
        sim::Trace t;
        o.trace = &t;
        g_checks.begin_launch(job.kernel, regions, elems, lib.shared, lib.shared_bytes, k.block[0] * k.block[1] * k.block[2]);
        const sim::Result tr = sim::detail::launch(job.kernel, cfg, o, [&] { lib.launch(args.data()); });
        int64_t w = 0, d = 0;
        (void)g_checks.end_launch(w, d);
        {
            (void)tr;  // a failed trace run still recorded every access before the defect
            rep.trace_intervals = t.intervals;
            for (const sim::TraceEvent& e : t.events) {
                puzzles::TraceAccess a;
                a.thread = e.thread;
                a.interval = e.interval;
                a.shared = e.space == sim::Space::Shared;
                a.store = e.store;
                a.element = e.offset / 4;
                if (!a.shared && e.region >= 0) {
                    const std::string& name = t.regions[static_cast<std::size_t>(e.region)];
                    for (std::size_t b = 0; b < k.buffers.size(); ++b)
                        if (k.buffers[b].name == name) a.buffer = static_cast<int32_t>(b);
                }
                rep.trace.push_back(a);
                if (rep.trace.size() >= 200000) break;
            }
        }
    }
    return rep;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: gpulab-kernel-runner JOB_FOLDER (started by gpulab, not by hand)\n");
        return 2;
    }
    if (fcntl(kReportFd, F_GETFD) == -1) {
        std::fprintf(stderr, "gpulab-kernel-runner: descriptor 3 (the report) is not open\n");
        return 2;
    }
    puzzles::KernelJob job;
    if (const std::string why = puzzles::read_job(argv[1], job); !why.empty()) {
        report(puzzles::report_line_fatal(why));
        return 2;
    }
    // The wall-clock limit for the whole job, and the CPU-time backstop inside confine().
    struct sigaction sa {};
    sa.sa_sigaction = on_alarm;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, nullptr);
    itimerval timer{};
    timer.it_value.tv_sec = job.time_limit_ms / 1000;
    timer.it_value.tv_usec = (job.time_limit_ms % 1000) * 1000;
    setitimer(ITIMER_REAL, &timer, nullptr);
#if !defined(__SANITIZE_ADDRESS__)
    install_crash_report();
#endif
    if (const std::string why = puzzle_runner::confine(std::size_t{2} << 30, job.time_limit_ms / 1000 + 2); !why.empty()) {
        report(puzzles::report_line_fatal(why));
        return 4;
    }
    static const gpulab_runtime_abi rt = {
        GPULAB_STUDENT_ABI,
        reinterpret_cast<const gpulab_builtins_abi* const*>(&sim::detail::t_builtins),
        abi_access,
        abi_block_entered,
        abi_sync_threads,
        abi_warp_op,
        abi_refuse,
        abi_array_index,
        abi_sync_threads_count,
    };
    Library lib;
    if (const std::string why = load(job.library, lib, &rt); !why.empty()) {
        report(puzzles::report_line_fatal(why));
        return 4;
    }
    g_checks.set_library_ranges(g_library);
    report(puzzles::report_line_base(lib.base));
    for (std::size_t c = 0; c < job.cases.size(); ++c) {
        const puzzles::CaseReport r = run_case(job, job.cases[c], lib, job.trace_first_case && c == 0);
        report(puzzles::report_line_case(static_cast<int>(c), r));
    }
    std::fflush(stdout);
    report(puzzles::report_line_done());
    return 0;
}
