#include "runner_sandbox.h"

#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gpulab::puzzle_runner {

namespace {

void write_all(int fd, const char* text, std::size_t n) {
    while (n > 0) {
        const ssize_t w = write(fd, text, n);
        if (w <= 0) return;
        text += w;
        n -= static_cast<std::size_t>(w);
    }
}

// A forbidden call: say which (the name is looked up in libseccomp's static table) and end.
void on_sigsys(int, siginfo_t* info, void*) {
    const char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, info->si_syscall);
    char line[96] = "forbidden ";
    std::strncat(line, name != nullptr ? name : "an unknown system call", sizeof line - 12);
    std::strncat(line, "\n", sizeof line - std::strlen(line) - 1);
    write_all(kReportFd, line, std::strlen(line));
    _exit(5);
}

}  // namespace

std::string confine(std::size_t memory_bytes, int cpu_seconds) {
    const auto limit = [](int resource, rlim_t value) {
        const rlimit r{value, value};
        return setrlimit(resource, &r) == 0;
    };
    // AddressSanitizer reserves terabytes of address space for its shadow: under it (CI's sanitizer
    // build) the address-space limit is left out, and a huge allocation fails by ASan's own cap.
#if defined(__SANITIZE_ADDRESS__)
    (void)memory_bytes;
    const bool address_space_ok = true;
#else
    const bool address_space_ok = limit(RLIMIT_AS, memory_bytes);
#endif
    if (!address_space_ok || !limit(RLIMIT_CPU, static_cast<rlim_t>(cpu_seconds)) ||
        !limit(RLIMIT_FSIZE, 0) || !limit(RLIMIT_CORE, 0)) {
        return std::string("could not set the kernel's resource limits: ") + std::strerror(errno);
    }
    struct sigaction sa {};
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSYS, &sa, nullptr);

    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
    if (ctx == nullptr) return "could not start the system-call filter (seccomp)";
    int rc = 0;
    const auto allow = [&](int call) {
        if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, call, 0);
    };
    // Memory, signals, time, the exit: what a computation and the C++ runtime need.
    for (int call : {SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(readv), SCMP_SYS(close), SCMP_SYS(fstat),
                     SCMP_SYS(newfstatat), SCMP_SYS(lseek), SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mprotect),
                     SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(brk), SCMP_SYS(rt_sigaction),
                     SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack), SCMP_SYS(exit),
                     SCMP_SYS(exit_group), SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(getpid),
                     SCMP_SYS(gettid), SCMP_SYS(futex), SCMP_SYS(getrandom),
                     SCMP_SYS(sched_yield), SCMP_SYS(getrusage)}) {
        allow(call);
    }
    // Signals only to this process itself (abort() and raise() use tgkill): a kernel that names
    // another process, the grader included, is stopped (issue 40: one killed its grader).
    const auto self = static_cast<scmp_datum_t>(getpid());
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 2, SCMP_A0(SCMP_CMP_EQ, self), SCMP_A1(SCMP_CMP_EQ, self));
    // fcntl only to read a descriptor's flags: nothing that duplicates, locks or redirects one.
    for (int cmd : {F_GETFD, F_GETFL}) {
        if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(fcntl), 1, SCMP_A1(SCMP_CMP_EQ, static_cast<scmp_datum_t>(cmd)));
    }
#if defined(__SANITIZE_ADDRESS__)
    // Under AddressSanitizer (CI's sanitizer build only): its runtime tests whether memory is
    // readable by writing it into a pipe of its own, and reads its options and maps from /proc.
    for (int call : {SCMP_SYS(pipe), SCMP_SYS(pipe2), SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(getrlimit),
                     SCMP_SYS(prlimit64), SCMP_SYS(sched_getaffinity), SCMP_SYS(prctl), SCMP_SYS(readlink),
                     SCMP_SYS(uname), SCMP_SYS(getppid), SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep), SCMP_SYS(ioctl),
                     SCMP_SYS(fcntl)}) {  // (its crash report duplicates and flags descriptors)
        allow(call);
    }
#else
    // Writes only to the report and to stdout/stderr (both pipes to the parent, which caps them).
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_LE, kReportFd));
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(writev), 1, SCMP_A0(SCMP_CMP_LE, kReportFd));
#endif
    // Files open read-only: no O_WRONLY, O_RDWR, O_CREAT, O_TRUNC or O_APPEND.
    const scmp_datum_t write_flags = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, write_flags, 0));
    if (rc == 0) rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, write_flags, 0));
    if (rc == 0) rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) return std::string("could not install the system-call filter (seccomp): ") + std::strerror(-rc);
    return "";
}

}  // namespace gpulab::puzzle_runner
