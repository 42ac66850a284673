// CUDA idioms in a puzzle submission (issue 40): every kernel in tests/data/puzzle-idioms/ is valid
// CUDA (nvcc compiles it for sm_80, where nvcc is installed) and passes its puzzle when compiled
// against student_cuda.h and run in the simulator; every kernel in fails/ fails with the defect
// and the words its header names: a race on a __device__ variable or a function-local static
// between blocks, and an answer that depends on the order the blocks ran in (shuffled, seeded).
//
// "puzzles" suite: needs g++ (the student's compiler), as the other puzzle tests do.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "puzzles/child_process.h"
#include "puzzles/puzzle.h"
#include "puzzles/puzzle_check.h"

using namespace gpulab::puzzles;
namespace fs = std::filesystem;

namespace {

fs::path source_dir() { return GPULAB_SOURCE_DIR; }
fs::path idioms_dir() { return fs::path(GPULAB_TEST_DATA_DIR) / "puzzle-idioms"; }
fs::path device_dir() { return source_dir() / "kernels/puzzle_runner/device"; }

Toolchain toolchain() { return find_toolchain(device_dir(), GPULAB_KERNEL_RUNNER); }

fs::path scratch(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / ("gpulab-test-idioms-" + std::to_string(getpid())) / name;
    fs::create_directories(p);
    return p;
}

std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// "// key: value" on one of the first lines of a kernel file.
std::string header(const std::string& source, const std::string& key) {
    std::istringstream in(source);
    std::string line;
    for (int n = 0; n < 5 && std::getline(in, line); ++n) {
        const std::string tag = "// " + key + ": ";
        if (line.rfind(tag, 0) == 0) return line.substr(tag.size());
    }
    return "";
}

std::vector<fs::path> kernels_in(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ".cu") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

const Puzzle* builtin(const std::string& id) {
    static const PuzzleLoad load = load_puzzles(source_dir() / "puzzles");
    for (const Puzzle& p : load.puzzles)
        if (p.id == id) return &p;
    return nullptr;
}

std::string defects_text(const CheckResult& r) {
    std::string s = r.summary;
    for (const Defect& d : r.defects) s += "\n  " + std::string(defect_kind_name(d.kind)) + ": " + d.message;
    return s;
}

CheckResult check(const Toolchain& tc, const fs::path& file, const Puzzle& p) {
    CheckOptions o;
    o.work_root = scratch(file.stem().string());
    // Every idiom here finishes: the limit only guards against a hang. Generous, because a busy
    // machine under ASan once took over 5 s for the 200-block reduction (a CI run beside other tests).
    o.time_limit_ms = 30000;
    return check_submission(tc, p, read(file), o);
}

}  // namespace

TEST_SUITE("puzzles") {

TEST_CASE("every CUDA idiom in tests/data/puzzle-idioms compiles against student_cuda.h and passes its puzzle") {
    const Toolchain tc = toolchain();
    REQUIRE_MESSAGE(tc.usable(), tc.missing);
    const std::vector<fs::path> files = kernels_in(idioms_dir());
    CHECK(files.size() >= 13);
    for (const fs::path& file : files) {
        const std::string source = read(file);
        const Puzzle* p = builtin(header(source, "puzzle"));
        INFO(file.filename().string());
        REQUIRE_MESSAGE(p != nullptr, "the first line names no built-in puzzle");
        const CheckResult r = check(tc, file, *p);
        INFO(defects_text(r) << "\n" << r.compile.raw);
        CHECK(r.compiled);
        CHECK(r.passed);
    }
}

TEST_CASE("the kernels that only the simulator's fidelity catches fail with their defect and its words") {
    const Toolchain tc = toolchain();
    REQUIRE_MESSAGE(tc.usable(), tc.missing);
    const std::vector<fs::path> files = kernels_in(idioms_dir() / "fails");
    CHECK(files.size() >= 3);
    for (const fs::path& file : files) {
        const std::string source = read(file);
        const Puzzle* p = builtin(header(source, "puzzle"));
        INFO(file.filename().string());
        REQUIRE_MESSAGE(p != nullptr, "the first line names no built-in puzzle");
        DefectKind want{};
        REQUIRE(defect_kind_from_name(header(source, "expect"), want));
        const std::string says = header(source, "says");
        REQUIRE(!says.empty());
        const CheckResult r = check(tc, file, *p);
        INFO(defects_text(r) << "\n" << r.compile.raw);
        CHECK(r.compiled);
        CHECK(!r.passed);
        REQUIRE(!r.defects.empty());
        MESSAGE(file.filename().string() << ": " << r.defects.front().message);
        CHECK(r.defects.front().kind == want);
        CHECK(r.defects.front().message.find(says) != std::string::npos);
    }
}

TEST_CASE("a block that waits for the block before it never gets its turn in a shuffled order: the timeout says the seed") {
    const Toolchain tc = toolchain();
    REQUIRE_MESSAGE(tc.usable(), tc.missing);
    const Puzzle* dot = builtin("dot");
    REQUIRE(dot != nullptr);
    CheckOptions o;
    o.work_root = scratch("turns");
    o.time_limit_ms = 2000;
    const CheckResult r = check_submission(tc, *dot, read(dot->folder / "wrong/waits-for-the-other-blocks.cu"), o);
    INFO(defects_text(r));
    REQUIRE(!r.defects.empty());
    CHECK(r.defects.front().kind == DefectKind::Timeout);
    CHECK(r.defects.front().message.find("blocks ran in shuffled order, seed 12345") != std::string::npos);
}

TEST_CASE("each CUDA idiom file is valid CUDA: nvcc compiles it for sm_80") {
    const Toolchain tc = toolchain();
    if (tc.nvcc.empty()) {
        MESSAGE("SKIPPED: no nvcc on this machine (the CUDA toolkit is optional)");
        return;
    }
    std::vector<fs::path> files = kernels_in(idioms_dir());
    for (const fs::path& f : kernels_in(idioms_dir() / "fails")) files.push_back(f);
    const fs::path work = scratch("nvcc");
    for (const fs::path& file : files) {
        ChildOptions o;
        // The same -I as gpulab's GPU build: the stand-in <cuda_runtime.h> there must hand over to
        // the toolkit's own.
        o.argv = {tc.nvcc.string(), "-c", "-std=c++17", "-arch=sm_80", "-I" + device_dir().string(), "-o",
                  (work / (file.stem().string() + ".o")).string(), file.string()};
        o.time_limit_ms = 120000;
        o.output_cap = 256 * 1024;
        const ChildResult c = run_child(o);
        INFO(file.filename().string() << "\n" << c.output);
        CHECK(c.started);
        CHECK(!c.timed_out);
        CHECK(c.exit_code == 0);
    }
}

}  // TEST_SUITE
