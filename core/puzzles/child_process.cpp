#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
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
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out.w, 1);
    posix_spawn_file_actions_adddup2(&actions, out.w, 2);
    if (o.report_fd) posix_spawn_file_actions_adddup2(&actions, rep.w, 3);
    if (!o.cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, o.cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setpgroup(&attr, 0);
    // The child starts with default signal handling and nothing blocked, whatever the app set.
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    std::vector<char*> argv;
    for (const std::string& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const auto start = std::chrono::steady_clock::now();
    const int rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    out.close_write();
    rep.close_write();
    if (rc != 0) {
        r.start_error = "could not start " + o.argv[0] + ": " + std::strerror(rc);
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
