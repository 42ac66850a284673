// Finds shaders/, lessons/ and assets/ at run time. The binary may run from the build tree
// (build/app/gpulab, whose parents lead to the source tree), from an install prefix
// (bin/gpulab with share/gpulab beside it), or from anywhere with GPULAB_DATA_DIR set.
// Verified by tests/test_gl_render.cpp: the shaders load from the build tree, and an empty
// GPULAB_DATA_DIR makes load_program fail with a message that names the missing file.
#include "resources.h"

#include <cstdlib>
#include <system_error>
#include <vector>

namespace gpulab::app {

namespace fs = std::filesystem;

namespace {

// GPULAB_DATA_DIR when set and non-empty, else null.
const char* data_dir_override() {
    const char* env = std::getenv("GPULAB_DATA_DIR");
    return env != nullptr && env[0] != '\0' ? env : nullptr;
}

// Candidate roots in search order. When GPULAB_DATA_DIR is set it is the only one, so a user (or a
// test) can tell exactly which files are used instead of getting a silent fallback. An installed
// binary (<prefix>/bin/gpulab with <prefix>/share/gpulab) likewise reads only its own share/gpulab:
// a source tree that happens to be on the machine must not hide a file the install lacks.
std::vector<fs::path> candidate_roots() {
    if (const char* env = data_dir_override()) return {fs::path(env)};
    std::vector<fs::path> roots;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec && !exe.empty()) {
        const fs::path installed = exe.parent_path().parent_path() / "share" / "gpulab";
        if (fs::exists(installed, ec)) return {installed};
        fs::path dir = exe.parent_path();
        roots.push_back(dir / "share" / "gpulab");
        // The binary itself and up to three parents: covers build/app/gpulab and build/tests/x.
        for (int up = 0; up < 4 && !dir.empty(); ++up) {
            roots.push_back(dir);
            if (dir == dir.parent_path()) break;
            dir = dir.parent_path();
        }
    }
#ifdef GPULAB_SOURCE_DIR
    roots.emplace_back(GPULAB_SOURCE_DIR);
#endif
    fs::path cwd = fs::current_path(ec);
    if (!ec) roots.push_back(cwd);
    return roots;
}

fs::path absolute_or_same(const fs::path& p) {
    std::error_code ec;
    fs::path abs = fs::weakly_canonical(p, ec);
    return ec ? p : abs;
}

}  // namespace

fs::path find_resource(const std::string& relative) {
    if (relative.empty()) return {};
    for (const fs::path& root : candidate_roots()) {
        std::error_code ec;
        fs::path candidate = root / relative;
        if (fs::exists(candidate, ec) && !ec) return absolute_or_same(candidate);
    }
    return {};
}

fs::path data_root() {
    for (const fs::path& root : candidate_roots()) {
        for (const char* sub : {"shaders", "lessons", "assets"}) {
            std::error_code ec;
            if (fs::is_directory(root / sub, ec) && !ec) return absolute_or_same(root);
        }
    }
    return {};
}

fs::path puzzle_dir() { return find_resource("puzzles"); }

fs::path student_device_dir() {
    const fs::path header = find_resource("kernels/puzzle_runner/device/student_cuda.h");
    return header.empty() ? fs::path() : header.parent_path();
}

fs::path kernel_runner_path() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec || exe.empty()) return {};
    // Next to gpulab in the build tree (build/app/), in lib/gpulab/ when installed.
    for (const fs::path& candidate : {exe.parent_path() / "gpulab-kernel-runner",
                                      exe.parent_path().parent_path() / "lib" / "gpulab" / "gpulab-kernel-runner",
                                      exe.parent_path().parent_path() / "app" / "gpulab-kernel-runner"}) {
        if (fs::exists(candidate, ec)) return candidate;
    }
    return {};
}

std::string data_root_problem() {
    const std::vector<fs::path> roots = candidate_roots();
    for (const fs::path& root : roots) {
        std::error_code ec;
        if (!fs::is_directory(root / "lessons", ec) || !fs::is_directory(root / "shaders", ec)) continue;
        // Present: can we read it? (A folder copied without its permissions is the usual failure.)
        fs::directory_iterator it(root / "lessons", ec);
        if (ec) {
            return "gpulab's data folder " + root.string() + " cannot be read (" + ec.message() +
                   "): reinstall gpulab or fix the folder's permissions";
        }
        return "";
    }
    std::string where;
    for (const fs::path& root : roots) where += (where.empty() ? "" : ", ") + root.string();
    if (data_dir_override() != nullptr) {
        return "GPULAB_DATA_DIR=" + where + " holds no lessons/ and shaders/ folders: point it at the folder that does";
    }
    return "gpulab's data folder (lessons/, shaders/, assets/) was not found in " + where +
           ": reinstall gpulab, or set GPULAB_DATA_DIR to the folder that holds them";
}

}  // namespace gpulab::app
