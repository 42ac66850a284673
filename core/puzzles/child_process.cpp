#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace gpulab::puzzles {

namespace fs = std::filesystem;

namespace {

struct Pipe {
    int r = -1, w = -1;
    bool open() {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) return false;
        r = fds[0];
        w = fds[1];
        return true;
    }
    void close_write() {
        if (w >= 0) ::close(w);
        w = -1;
    }
    ~Pipe() {
        if (r >= 0) ::close(r);
        if (w >= 0) ::close(w);
    }
};

}  // namespace

fs::path find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
        const std::size_t end = dirs.find(':', start);
        const std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!dir.empty()) {
            const fs::path candidate = fs::path(dir) / name;
            if (access(candidate.c_str(), X_OK) == 0) return candidate;
        }
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return {};
}

ChildResult run_child(const ChildOptions& o) {
    ChildResult r;
    if (o.argv.empty()) {
        r.start_error = "no program to run";
        return r;
    }
    Pipe out, rep;
    if (!out.open() || (o.report_fd && !rep.open())) {
        r.start_error = std::string("could not create a pipe: ") + std::strerror(errno);
        return r;
    }
    // fork + exec rather than posix_spawn: the limits must be set in the child before the program
    // starts, which posix_spawn cannot do. Everything the child needs is prepared here; between
    // fork and exec it makes only async-signal-safe system calls (the app has other threads).
    std::vector<char*> argv;
    for (const std::string& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const std::string cwd = o.cwd.string();
    Pipe failed;  // the child writes errno here when it cannot start the program
    if (!failed.open()) {
        r.start_error = std::string("could not create a pipe: ") + std::strerror(errno);
        return r;
    }
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        const auto fail = [&](int step) {
            const int e[2] = {step, errno};
            (void)!write(failed.w, e, sizeof e);
            _exit(127);
        };
        setpgid(0, 0);
        const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        // dup2 onto the same number keeps close-on-exec: clear it by hand then.
        const auto give = [&](int fd, int as) {
            if (fd == as) return fcntl(fd, F_SETFD, 0) == 0;
            return dup2(fd, as) == as;
        };
        if (null_fd < 0 || !give(null_fd, 0) || !give(out.w, 1) || !give(out.w, 2) || (o.report_fd && !give(rep.w, 3))) fail(1);
        // Nothing else of the app's reaches the child (an inherited descriptor would cross into the
        // sandbox with it): everything above 2, or 3 when it is the report, is closed.
        // The pipe that reports a failed start stays (close-on-exec closes it at the exec).
        const unsigned lowest = o.report_fd ? 4u : 3u, keep = static_cast<unsigned>(failed.w);
        if (keep >= lowest) {
            if (keep > lowest) close_range(lowest, keep - 1, 0);
            close_range(keep + 1, ~0U, 0);
        } else {
            close_range(lowest, ~0U, 0);
        }
        if (!cwd.empty() && chdir(cwd.c_str()) != 0) fail(2);
        const auto limit = [&](int resource, std::size_t value) {
            if (value == 0) return;
            const rlimit l{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
            if (setrlimit(resource, &l) != 0) fail(3);
        };
        limit(RLIMIT_AS, o.limits.address_space);
        limit(RLIMIT_FSIZE, o.limits.file_size);
        limit(RLIMIT_CPU, static_cast<std::size_t>(o.limits.cpu_seconds));
        if (o.limits.no_core) {
            const rlimit none{0, 0};
            setrlimit(RLIMIT_CORE, &none);
        }
        // The child starts with default signal handling and nothing blocked, whatever the app set.
        struct sigaction dfl {};
        dfl.sa_handler = SIG_DFL;
        for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        execve(argv[0], argv.data(), environ);
        fail(4);
    }
    out.close_write();
    rep.close_write();
    failed.close_write();
    if (pid < 0) {
        r.start_error = std::string("could not start ") + o.argv[0] + ": " + std::strerror(errno);
        return r;
    }
    setpgid(pid, pid);  // also from this side, so the kill below never races the child's own call
    int why[2] = {0, 0};
    ssize_t got_why;
    while ((got_why = read(failed.r, why, sizeof why)) < 0 && errno == EINTR) {
    }
    if (got_why == static_cast<ssize_t>(sizeof why)) {
        int status = 0;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        static const char* const steps[] = {"", "its input and output", "its folder", "its limits", ""};
        r.start_error = "could not start " + o.argv[0] + ": " + std::strerror(why[1]) +
                        (why[0] >= 1 && why[0] <= 3 ? std::string(" (setting up ") + steps[why[0]] + ")" : std::string());
        return r;
    }
    r.started = true;
    const auto stop = [&] { kill(-pid, SIGKILL); };
    bool out_open = true, rep_open = o.report_fd;
    char buffer[65536];
    while (out_open || rep_open) {
        const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
        if (elapsed > o.time_limit_ms) {
            r.timed_out = true;
            stop();
            break;
        }
        if (o.cancelled && o.cancelled()) {
            r.cancelled = true;
            stop();
            break;
        }
        pollfd fds[2];
        int n = 0;
        if (out_open) fds[n++] = {out.r, POLLIN, 0};
        if (rep_open) fds[n++] = {rep.r, POLLIN, 0};
        const int ready = poll(fds, static_cast<nfds_t>(n), 50);
        if (ready < 0 && errno != EINTR) break;
        for (int i = 0; i < n; ++i) {
            if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
            const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
            const bool is_out = fds[i].fd == out.r;
            if (got <= 0) {
                (is_out ? out_open : rep_open) = false;
                continue;
            }
            std::string& into = is_out ? r.output : r.report;
            const std::size_t cap = is_out ? o.output_cap : o.report_cap;
            into.append(buffer, static_cast<std::size_t>(got));
            if (into.size() > cap) {
                into.resize(cap);
                if (is_out) r.output_capped = true;
                stop();
                out_open = rep_open = false;
            }
        }
    }
    int status = 0;
    rusage usage{};
    while (wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    r.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
    kill(-pid, SIGKILL);  // anything the child left behind in its group
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

}  // namespace gpulab::puzzles
