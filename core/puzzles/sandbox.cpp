#include "sandbox.h"

#include <cstdlib>
#include <mutex>

#include "child_process.h"

namespace gpulab::puzzles {

namespace fs = std::filesystem;

namespace {

bool under_usr(const fs::path& p) {
    const std::string s = p.lexically_normal().string();
    return s == "/usr" || s.rfind("/usr/", 0) == 0;
}

// The system the programs need, read-only: /usr, and the top-level folders that point into it
// (Debian 12 merges /bin, /lib, /lib64 into /usr; an older layout binds them as folders).
void add_system(std::vector<std::string>& a) {
    a.insert(a.end(), {"--ro-bind", "/usr", "/usr"});
    for (const char* top : {"/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"}) {
        std::error_code ec;
        const fs::file_status st = fs::symlink_status(top, ec);
        if (ec || !fs::exists(st)) continue;
        if (fs::is_symlink(st)) {
            const fs::path target = fs::read_symlink(top, ec);
            if (!ec) a.insert(a.end(), {"--symlink", target.string(), top});
        } else if (fs::is_directory(st)) {
            a.insert(a.end(), {"--ro-bind", top, top});
        }
    }
    // Not secrets: the loader's cache (faster start-up) and Debian's alternatives (cc, c++).
    a.insert(a.end(), {"--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache", "--ro-bind-try", "/etc/alternatives",
                       "/etc/alternatives"});
}

std::vector<std::string> bwrap_argv(const fs::path& bwrap, const SandboxSpec& spec, const fs::path& cwd) {
    std::vector<std::string> a = {bwrap.string(), "--unshare-all", "--die-with-parent", "--new-session",
                                  "--cap-drop", "ALL"};
    add_system(a);
    a.insert(a.end(), {"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"});
    if (spec.gpu) {
        // The driver's device nodes and what it reads of the PCI bus. Not yet seen on a GPU
        // (docs/gpu-verification.md).
        std::error_code ec;
        for (const auto& e : fs::directory_iterator("/dev", ec)) {
            const std::string name = e.path().filename().string();
            if (name.rfind("nvidia", 0) == 0) a.insert(a.end(), {"--dev-bind", e.path().string(), e.path().string()});
        }
        a.insert(a.end(), {"--ro-bind-try", "/sys", "/sys"});
    }
    const auto bind = [&](const char* how, const fs::path& p) {
        if (p.empty()) return;
        std::error_code ec;
        const fs::path real = fs::weakly_canonical(p, ec);
        a.insert(a.end(), {how, (ec ? p : real).string(), p.lexically_normal().string()});
    };
    for (const fs::path& p : spec.readable)
        if (!under_usr(p)) bind("--ro-bind", p);
    for (const fs::path& p : spec.writable) bind("--bind", p);
    a.insert(a.end(), {"--chdir", cwd.empty() ? std::string("/") : cwd.string(), "--clearenv", "--setenv", "PATH",
                       "/usr/local/bin:/usr/bin:/bin", "--setenv", "LC_ALL", "C", "--setenv", "HOME", "/tmp",
                       "--setenv", "TMPDIR", "/tmp"});
    // The sanitizer builds' own settings (CI runs the runner under ASan + UBSan).
    for (const char* keep : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS"}) {
        if (const char* v = std::getenv(keep); v != nullptr) a.insert(a.end(), {"--setenv", keep, v});
    }
    a.push_back("--");
    return a;
}

SandboxStatus probe() {
    SandboxStatus s;
    const char* env = std::getenv("GPULAB_BWRAP");
    const std::string chosen = env != nullptr ? env : "";
    if (chosen == "off") {
        s.sentence = "Puzzle kernels and their compiler run without namespace confinement (GPULAB_BWRAP=off); "
                     "seccomp and resource limits still apply";
        return s;
    }
    s.bwrap = chosen.empty() ? find_on_path("bwrap") : fs::path(chosen);
    std::error_code ec;
    if (s.bwrap.empty() || !fs::exists(s.bwrap, ec)) {
        s.bwrap.clear();
        s.sentence = "Puzzle kernels and their compiler run without namespace confinement because bubblewrap is "
                     "not installed (sudo apt install bubblewrap); seccomp and resource limits still apply";
        return s;
    }
    ChildOptions o;
    o.argv = bwrap_argv(s.bwrap, {}, "/");
    o.argv.push_back("/usr/bin/true");
    o.time_limit_ms = 10000;
    const ChildResult r = run_child(o);
    if (r.started && r.exit_code == 0) {
        s.confined = true;
        return s;
    }
    std::string why = r.started ? r.output : r.start_error;
    why = why.substr(0, why.find('\n'));
    if (why.size() > 160) why = why.substr(0, 160) + "...";
    s.sentence = "Puzzle kernels and their compiler run without namespace confinement because bubblewrap could "
                 "not create namespaces here (" + (why.empty() ? std::string("it failed") : why) +
                 "); seccomp and resource limits still apply";
    return s;
}

}  // namespace

const SandboxStatus& sandbox_status() {
    static const SandboxStatus status = probe();  // thread-safe once (C++11 statics)
    return status;
}

std::vector<std::string> sandboxed_argv(const SandboxSpec& spec, const fs::path& cwd, const std::vector<std::string>& argv) {
    const SandboxStatus& s = sandbox_status();
    if (!s.confined) return argv;
    std::vector<std::string> a = bwrap_argv(s.bwrap, spec, cwd);
    a.insert(a.end(), argv.begin(), argv.end());
    return a;
}

}  // namespace gpulab::puzzles
