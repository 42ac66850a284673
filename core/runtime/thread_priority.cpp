// Per-thread nice values (see thread_priority.h). Linux gives each thread its own nice value
// through setpriority(PRIO_PROCESS, thread id); POSIX leaves that unspecified, so elsewhere this
// does nothing and the app simply runs at one priority.
#include "thread_priority.h"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace gpulab::cpu {

#if defined(__linux__)
bool set_this_thread_nice(int nice) {
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    return setpriority(PRIO_PROCESS, tid, nice) == 0;
}

int this_thread_nice() {
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    errno = 0;
    const int n = getpriority(PRIO_PROCESS, tid);
    return errno == 0 ? n : 0;
}
#else
bool set_this_thread_nice(int) { return false; }
int this_thread_nice() { return 0; }
#endif

}  // namespace gpulab::cpu
