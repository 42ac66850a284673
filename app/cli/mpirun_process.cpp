// mpirun as a child process: see mpirun_process.h.
#include "mpirun_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "distributed/mpirun_report.h"

namespace gpulab::app {

namespace {

volatile sig_atomic_t g_child = 0;

// Ctrl-C, a terminal closing or a kill of the launcher: mpirun is told to stop its workers.
void forward_stop(int) {
    if (g_child > 0) kill(static_cast<pid_t>(g_child), SIGTERM);
}

}  // namespace

std::string find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (!path) return "";
    std::string dirs = path;
    std::size_t start = 0;
    while (start <= dirs.size()) {
        std::size_t end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        const std::string dir = dirs.substr(start, end - start);
        start = end + 1;
        if (dir.empty()) continue;  // an empty entry means the working directory: not a place to look for mpirun
        const std::string candidate = dir + "/" + name;
        struct stat st {};
        if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return "";
}

MpirunOutcome run_mpirun(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
    MpirunOutcome out;
    const bool verbose = [] {
        const char* v = std::getenv("GPULAB_MPI_VERBOSE");
        return v && *v && std::strcmp(v, "0") != 0;
    }();
    int err_pipe[2];
    if (pipe2(err_pipe, O_CLOEXEC) != 0) {
        out.error = std::string("cannot make a pipe for mpirun: ") + std::strerror(errno);
        return out;
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t parent = getpid();
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t child = fork();
    if (child < 0) {
        out.error = std::string("cannot start mpirun: ") + std::strerror(errno);
        close(err_pipe[0]);
        close(err_pipe[1]);
        return out;
    }
    if (child == 0) {
        // If the launcher dies, even by SIGKILL, mpirun is told to stop (and stops its workers).
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(127);
        dup2(err_pipe[1], STDERR_FILENO);
        for (const std::string& e : environment) putenv(const_cast<char*>(e.c_str()));
        execv(args[0], args.data());
        std::fprintf(stderr, "gpulab train: cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    close(err_pipe[1]);
    out.started = true;
    g_child = child;
    struct sigaction stop {}, old_int {}, old_term {}, old_hup {};
    stop.sa_handler = forward_stop;
    sigemptyset(&stop.sa_mask);
    sigaction(SIGINT, &stop, &old_int);
    sigaction(SIGTERM, &stop, &old_term);
    sigaction(SIGHUP, &stop, &old_hup);

    std::set<std::string> said;  // each worker sentence once: all workers fail alike on bad data
    std::string pending;
    auto take_line = [&](const std::string& line) {
        if (verbose) {
            std::fprintf(stderr, "%s\n", line.c_str());
        } else if (distributed::is_worker_sentence(line)) {
            if (said.insert(line).second) std::fprintf(stderr, "%s\n", line.c_str());
            out.worker_spoke = true;
            return;
        }
        out.mpirun_text += line + "\n";
    };
    // Read until mpirun's stderr closes; a process that kept the pipe open after mpirun ended (it
    // should not) gets a second, then the launcher stops reading rather than hang.
    char buf[4096];
    int status = 0;
    bool exited = false;
    std::int64_t drain_polls = 0;
    for (;;) {
        pollfd pfd{err_pipe[0], POLLIN, 0};
        const int ready = poll(&pfd, 1, 100);
        if (ready < 0 && errno != EINTR) break;
        if (ready > 0) {
            const ssize_t n = read(err_pipe[0], buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            pending.append(buf, static_cast<std::size_t>(n));
            for (std::size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
                take_line(pending.substr(0, nl));
                pending.erase(0, nl + 1);
            }
            continue;
        }
        if (!exited && waitpid(child, &status, WNOHANG) == child) exited = true;
        if (exited && ++drain_polls > 10) break;
    }
    if (!pending.empty()) take_line(pending);
    close(err_pipe[0]);
    if (!exited) {
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
    }
    g_child = 0;
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGHUP, &old_hup, nullptr);
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return out;
}

}  // namespace gpulab::app
