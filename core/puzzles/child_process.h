// Runs another program as a child process with a wall-clock limit, capturing what it prints (up to
// a cap) and, when asked, what it writes to descriptor 3: how the app compiles a student's kernel
// (the compiler), runs it (gpulab-kernel-runner) and finds source lines (addr2line) without ever
// running student code in its own process or blocking its window. The child gets its own process
// group, so a limit or a cancel ends everything it started (cc1plus under g++). POSIX; plain C++.
// Limits (setrlimit in the child, before it starts the program) bound what a compiler or a kernel
// given hostile source can take: memory, the size of any file it writes, CPU time. Verified by
// tests/test_puzzles.cpp.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace gpulab::puzzles {

// 0 leaves a limit as the app's own.
struct ChildLimits {
    std::size_t address_space = 0;  // RLIMIT_AS: a bigger allocation fails
    std::size_t file_size = 0;      // RLIMIT_FSIZE: writing past it ends the child (SIGXFSZ)
    int cpu_seconds = 0;            // RLIMIT_CPU: a backstop for the wall-clock limit (SIGXCPU)
    bool no_core = true;            // RLIMIT_CORE 0: a crash leaves no core file behind
};

struct ChildOptions {
    std::vector<std::string> argv;      // argv[0] is the program's path
    std::filesystem::path cwd;          // empty: the caller's
    int time_limit_ms = 10000;
    std::size_t output_cap = 64 * 1024;  // stdout and stderr together; past it the child is stopped
    bool report_fd = false;             // give the child descriptor 3 and collect it
    std::size_t report_cap = std::size_t{256} << 20;
    std::function<bool()> cancelled;    // polled; true stops the child
    ChildLimits limits;
};

struct ChildResult {
    bool started = false;
    std::string start_error;     // why it could not start
    int exit_code = -1;          // when it exited
    int signal = 0;              // when a signal ended it
    bool timed_out = false;      // stopped at the time limit
    bool output_capped = false;  // stopped for printing more than output_cap
    bool cancelled = false;
    std::string output;          // stdout and stderr, interleaved as written
    std::string report;          // descriptor 3
    double seconds = 0.0;
    double cpu_seconds = 0.0;    // user + system time of the child (and its waited-for children)
};

ChildResult run_child(const ChildOptions& options);

// The first executable named `name` on $PATH (empty when none).
std::filesystem::path find_on_path(const std::string& name);

}  // namespace gpulab::puzzles
