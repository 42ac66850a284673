// Kernel puzzles (core/puzzles/, kernels/puzzle_runner/): every built-in puzzle's reference
// passes and every wrong/*.cu is caught with the defect its first line expects; each defect class
// on a deliberately broken kernel written with raw pointers and plain __shared__ arrays; the
// confinement (a kernel that writes ~/.bashrc, opens a socket or forks is stopped with a sentence);
// bad input (no compiler, a kernel that does not compile, runs forever, prints a megabyte); the
// puzzle file format refusing broken files; expressions; the job and report protocol.
//
// "puzzles" suite: needs g++ (the student's compiler), as every Debian build machine has.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

#include "gpu_backends.h"
#include "puzzles/child_process.h"
#include "puzzles/int_expression.h"
#include "puzzles/kernel_job.h"
#include "puzzles/puzzle.h"
#include "puzzles/puzzle_check.h"
#include "puzzles/reference_record.h"

using namespace gpulab::puzzles;
namespace fs = std::filesystem;

namespace {

fs::path source_dir() { return GPULAB_SOURCE_DIR; }

Toolchain toolchain() { return find_toolchain(source_dir() / "kernels/puzzle_runner/device", GPULAB_KERNEL_RUNNER); }

fs::path scratch(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / ("gpulab-test-puzzles-" + std::to_string(getpid())) / name;
    fs::create_directories(p);
    return p;
}

const Puzzle& builtin(const std::string& id) {
    static const PuzzleLoad load = load_puzzles(source_dir() / "puzzles");
    for (const Puzzle& p : load.puzzles)
        if (p.id == id) return p;
    FAIL("no built-in puzzle " << id);
    static Puzzle none;
    return none;
}

CheckResult check(const std::string& id, const std::string& source, int time_limit_ms = 5000) {
    CheckOptions o;
    o.work_root = scratch("work");
    o.time_limit_ms = time_limit_ms;
    return check_submission(toolchain(), builtin(id), source, o);
}

bool has(const CheckResult& r, DefectKind k) {
    for (const Defect& d : r.defects)
        if (d.kind == k) return true;
    return false;
}

std::string defects_text(const CheckResult& r) {
    std::string s = r.summary;
    for (const Defect& d : r.defects) s += "\n  " + std::string(defect_kind_name(d.kind)) + ": " + d.message;
    return s;
}

bool mentions_line(const CheckResult& r, DefectKind k, int line) {
    for (const Defect& d : r.defects)
        if (d.kind == k && std::find(d.lines.begin(), d.lines.end(), line) != d.lines.end()) return true;
    return false;
}

std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_SUITE("puzzles") {

TEST_CASE("puzzle expressions: integer arithmetic, ceil_div, and a sentence for every mistake") {
    const Variables v{{"n", 1000}, {"w", 7}};
    CHECK(evaluate("(n + 255) / 256", v).value == 4);
    CHECK(evaluate("ceil_div(n, 256)", v).value == 4);
    CHECK(evaluate("ceil_div(1024, 256)", v).value == 4);
    CHECK(evaluate("max(w * 2, 3) - -1", v).value == 15);
    CHECK(evaluate("n % 7", v).value == 6);
    CHECK(evaluate("m + 1", v).error.find("'m'") != std::string::npos);
    CHECK(evaluate("n / 0", v).error.find("divides by zero") != std::string::npos);
    CHECK(evaluate("9223372036854775807 + 1", v).error.find("overflows") != std::string::npos);
    CHECK(evaluate("n +", v).error.find("expected") != std::string::npos);
    CHECK(evaluate("pow(n, 2)", v).error.find("no function 'pow'") != std::string::npos);
    CHECK(evaluate("n 5", v).error.find("unexpected") != std::string::npos);
}

TEST_CASE("puzzle files: the built-in puzzles load, a broken one is refused with file:line") {
    const PuzzleLoad load = load_puzzles(source_dir() / "puzzles");
    CHECK(load.errors.empty());
    REQUIRE(!load.puzzles.empty());
    CHECK(load.puzzles.front().id == "map");
    // The fixed interfaces instructors' graders rely on.
    CHECK(builtin("map").signature() == "__global__ void map(const float* a, float* out, int n)");

    const fs::path dir = scratch("broken") / "bad-puzzle";
    fs::create_directories(dir);
    std::ofstream(dir / "puzzle.toml") << "id = \"bad-puzzle\"\ntitle = \"t\"\nstatement = \"s\"\nkernel = \"k\"\n"
                                          "params = [\"double* a\", \"int n\"]\nblock = [256]\ngrid = [\"n / 0\"]\n"
                                          "colour = 3\n[[cases]]\nname = \"c\"\nn = 5\n";
    const PuzzleLoad bad = load_puzzle(dir);
    CHECK(bad.puzzles.empty());
    std::string all;
    for (const auto& e : bad.errors) all += e + "\n";
    CHECK(all.find("puzzle.toml:") != std::string::npos);
    CHECK(all.find("unknown key 'colour'") != std::string::npos);
    CHECK(all.find("\"double* a\" is not one of") != std::string::npos);
    CHECK(all.find("divides by zero") != std::string::npos);
    CHECK(all.find("solution.cu") != std::string::npos);

    // An absurd size is a sentence, not an allocation.
    std::ofstream(dir / "puzzle.toml") << "id = \"bad-puzzle\"\ntitle = \"t\"\nstatement = \"s\"\nkernel = \"k\"\n"
                                          "params = [\"float* a\", \"int n\"]\nblock = [256]\ngrid = [1]\n"
                                          "[buffers.a]\ncount = \"n * n\"\n[[cases]]\nname = \"c\"\nn = 100000000\n";
    const PuzzleLoad huge = load_puzzle(dir);
    REQUIRE(!huge.errors.empty());
    CHECK(huge.errors.front().find("1 to 16777216 are allowed") != std::string::npos);
}

TEST_CASE("puzzle jobs and reports survive the trip between the app and the runner") {
    const Puzzle& p = builtin("map");
    const KernelJob job = make_job(p, "/x/kernel.so", 1234, true);
    REQUIRE(job.cases.size() == p.cases.size());
    const fs::path dir = scratch("job");
    REQUIRE(write_job(job, dir).empty());
    KernelJob back;
    REQUIRE(read_job(dir, back).empty());
    CHECK(back.library == "/x/kernel.so");
    CHECK(back.time_limit_ms == 1234);
    CHECK(back.trace_first_case);
    REQUIRE(back.cases.size() == job.cases.size());
    CHECK(back.cases[1].grid[0] == job.cases[1].grid[0]);
    CHECK(back.cases[1].buffers[0].data == job.cases[1].buffers[0].data);
    CHECK(!back.cases[1].buffers[1].filled);

    CaseReport c;
    c.finished = true;
    c.kind = DefectKind::Race;
    c.message = "a race {{site:0x7f0012345678}} and\nmore {{site:0x7f0012345680}}";
    c.outputs = {{}, {std::byte{1}, std::byte{255}}};
    c.divergent_warps = 3;
    const KernelReport r = parse_report(report_line_base(0x7f0012340000) + report_line_case(0, c) + report_line_done());
    CHECK(r.done);
    CHECK(r.library_base == 0x7f0012340000);
    REQUIRE(r.cases.size() == 1);
    CHECK(r.cases[0].kind == DefectKind::Race);
    CHECK(r.cases[0].message == c.message);
    CHECK(r.cases[0].sites == std::vector<std::uintptr_t>{0x7f0012345678, 0x7f0012345680});
    CHECK(r.cases[0].outputs[1] == c.outputs[1]);
    CHECK(r.cases[0].divergent_warps == 3);
    // Cut off half way (a killed child): what was finished is kept.
    const KernelReport cut = parse_report(report_line_base(1) + "case 0 1 1 0 5");
    CHECK(!cut.done);
}

TEST_CASE("every puzzle's reference passes, and every wrong solution is caught with its defect") {
    const Toolchain tc = toolchain();
    REQUIRE_MESSAGE(tc.usable(), tc.missing);
    const PuzzleLoad load = load_puzzles(source_dir() / "puzzles");
    CHECK(load.puzzles.size() >= 12);
    std::vector<std::vector<std::string>> problems(load.puzzles.size());
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i; (i = next++) < load.puzzles.size();) {
            CheckOptions o;
            o.work_root = scratch("all");
            o.time_limit_ms = 3000;
            problems[i] = validate_puzzle(tc, load.puzzles[i], o);
        }
    };
    std::thread a(work), b(work);
    a.join();
    b.join();
    std::size_t wrong_files = 0;
    for (std::size_t i = 0; i < load.puzzles.size(); ++i) {
        wrong_files += load.puzzles[i].wrong.size();
        for (const std::string& p : problems[i]) {
#if defined(__SANITIZE_ADDRESS__)
            // Under AddressSanitizer the runner has no address-space limit and ASan's allocator
            // prints a warning per failed allocation: a memory hog fails some other way there.
            if (p.find("expected memory limit") != std::string::npos) continue;
#endif
            FAIL_CHECK(p);
        }
        // At least one mistake per puzzle, so every puzzle's checks are proven awake.
        CHECK_MESSAGE(!load.puzzles[i].wrong.empty(), load.puzzles[i].id << " has no wrong/*.cu");
    }
    MESSAGE(load.puzzles.size() << " puzzles, " << wrong_files << " wrong solutions checked");
}

TEST_CASE("each defect class, on raw pointers and plain __shared__ arrays, is a sentence with its line") {
    REQUIRE_MESSAGE(toolchain().usable(), toolchain().missing);
    SUBCASE("out-of-bounds global read, with the element and the line") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    out[i] = a[i] + 10;\n}\n");
        CHECK(mentions_line(r, DefectKind::OutOfBounds, 3));
        CHECK(defects_text(r).find("a[8], past the end of 'a' (8 floats)") != std::string::npos);
    }
    SUBCASE("out-of-bounds shared write past a __shared__ array") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    __shared__ float s[256];\n"
                                           "    s[threadIdx.x + 1] = 1.0f;\n"
                                           "    __syncthreads();\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    if (i < n) out[i] = a[i] + 10 + 0 * s[threadIdx.x];\n}\n");
        CHECK(mentions_line(r, DefectKind::OutOfBounds, 3));
        // The array's own bounds (-fsanitize=bounds) say it before the write lands anywhere.
        CHECK(defects_text(r).find("index 256 of a 'float [256]' array (valid: 0 to 255)") != std::string::npos);
    }
    SUBCASE("a local array's overflow, inside the thread's own stack") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    float local[4];\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    for (int k = 0; k <= 4; ++k) local[k] = 1.0f;\n"
                                           "    if (i < n) out[i] = a[i] + 10 + 0 * local[0];\n}\n");
        CHECK(mentions_line(r, DefectKind::OutOfBounds, 4));
        CHECK(defects_text(r).find("index 4 of a 'float [4]' array (valid: 0 to 3)") != std::string::npos);
    }
    SUBCASE("a shared-memory race between two threads, both accesses named with their lines") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    __shared__ float s[256];\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    s[threadIdx.x] = i < n ? a[i] : 0.0f;\n"
                                           "    float v = s[(threadIdx.x + 1) % 256];\n"
                                           "    if (i < n) out[i] = v + 10;\n}\n");
        CHECK(mentions_line(r, DefectKind::Race, 4));
        CHECK(mentions_line(r, DefectKind::Race, 5));
    }
    SUBCASE("a global-memory race between blocks") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    if (threadIdx.x < n) out[threadIdx.x] = a[threadIdx.x] + 10;\n}\n");
        CHECK(has(r, DefectKind::Race));
        CHECK(defects_text(r).find("(another block)") != std::string::npos);
    }
    SUBCASE("a barrier not reached by every thread") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    if (i >= n) return;\n"
                                           "    __syncthreads();\n"
                                           "    out[i] = a[i] + 10;\n}\n");
        CHECK(mentions_line(r, DefectKind::Barrier, 4));
    }
    SUBCASE("a read of an output nobody wrote (device memory is not zeroed)") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    if (i < n) out[i] += a[i] + 10;\n}\n");
        CHECK(mentions_line(r, DefectKind::Uninitialised, 3));
        CHECK(defects_text(r).find("out[0], which nothing wrote before") != std::string::npos);
    }
    SUBCASE("a misaligned vector load") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    if (i + 5 <= n) { float4 v = *reinterpret_cast<const float4*>(a + i + 1); out[i] = v.x; }\n"
                                           "    if (i < n) out[i] = a[i] + 10;\n}\n");
        CHECK(mentions_line(r, DefectKind::Misaligned, 3));
    }
    SUBCASE("a warp shuffle reading a lane that has returned") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    if (i >= n) return;\n"
                                           "    float v = __shfl_down_sync(0xffffffffu, a[i], 1);\n"
                                           "    out[i] = a[i] + 10 + 0 * v;\n}\n");
        CHECK(has(r, DefectKind::WarpMask));
    }
    SUBCASE("static shared arrays over 48 KiB: a launch a GPU refuses") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    __shared__ float big[16384];\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    big[threadIdx.x] = 1.0f;\n"
                                           "    if (i < n) out[i] = a[i] + 10 + 0 * big[threadIdx.x];\n}\n");
        CHECK(has(r, DefectKind::LaunchRefused));
        CHECK(defects_text(r).find("48 KiB") != std::string::npos);
    }
    SUBCASE("an intrinsic the simulator cannot model is refused") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    long long t = clock64();\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    if (i < n) out[i] = a[i] + 10 + 0 * t;\n}\n");
        CHECK(has(r, DefectKind::Unsupported));
    }
    SUBCASE("a large local array meets the stack's guard page") {
        const CheckResult r = check("map", "__global__ void map(const float* a, float* out, int n) {\n"
                                           "    float big[100000];\n"
                                           "    big[threadIdx.x] = 1.0f;\n"
                                           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                           "    if (i < n) out[i] = a[i] + 10 + big[n % 7] * 0;\n}\n");
#if defined(__SANITIZE_ADDRESS__)
        CHECK(!r.passed);  // AddressSanitizer reports the overflow itself (the simulator's sentence is off)
#else
        INFO(defects_text(r));
        CHECK(has(r, DefectKind::StackOverflow));
        CHECK(defects_text(r).find("needed more than its stack") != std::string::npos);
        CHECK(mentions_line(r, DefectKind::StackOverflow, 1));  // the function whose frame did not fit
        CHECK(r.printed.find("needed more than its stack") == std::string::npos);  // gpulab's words, not the kernel's
#endif
    }
}

TEST_CASE("a kernel that writes ~/.bashrc, opens a socket or forks is refused with a sentence") {
    // The source policy refuses each before it is compiled (each confinement layer under it is
    // tested alone in test_puzzle_sandbox.cpp). HOME points into the test's scratch folder: if
    // everything failed, nothing real is hurt.
    REQUIRE_MESSAGE(toolchain().usable(), toolchain().missing);
    const fs::path home = scratch("home");
    setenv("HOME", home.c_str(), 1);
    const std::string head = "__global__ void map(const float* a, float* out, int n) {\n";
    const CheckResult w = check("map", "#include <stdio.h>\n#include <stdlib.h>\n" + head +
                                           "    char p[512]; snprintf(p, sizeof p, \"%s/.bashrc\", getenv(\"HOME\"));\n"
                                           "    FILE* f = fopen(p, \"a\"); if (f) fputs(\"rm -rf ~\\n\", f);\n}\n");
    CHECK(has(w, DefectKind::Forbidden));
    CHECK(defects_text(w).find("which is not a device function") != std::string::npos);
    CHECK(!fs::exists(home / ".bashrc"));
    const CheckResult s = check("map", "#include <sys/socket.h>\n" + head + "    socket(AF_INET, SOCK_STREAM, 0);\n}\n");
    CHECK(has(s, DefectKind::Forbidden));
    CHECK(defects_text(s).find("#include <sys/socket.h> is refused") != std::string::npos);
    const CheckResult f = check("map", "#include <unistd.h>\n" + head + "    fork();\n}\n");
    CHECK(has(f, DefectKind::Forbidden));
    CHECK(mentions_line(f, DefectKind::Forbidden, 1));
}

TEST_CASE("bad submissions (endless, chatty, greedy, broken, renamed) and no compiler at all") {
    REQUIRE_MESSAGE(toolchain().usable(), toolchain().missing);
    const std::string head = "__global__ void map(const float* a, float* out, int n) {\n";
    SUBCASE("a kernel that never finishes: stopped, with where it was") {
        const CheckResult r = check("map", head + "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                                  "    while (i < n) { out[i] = a[i]; }\n}\n", 2000);
        // 2 s, not 1: the limit counts from the runner's start, and on a loaded 2-core machine
        // loading the kernel took long enough that the alarm once came before its first loop
        // (issue 38); the line is the loop's whichever instruction the alarm lands on.
        INFO(defects_text(r));
        CHECK(has(r, DefectKind::Timeout));
        CHECK(defects_text(r).find("Stopped after 2 s") != std::string::npos);
        CHECK(mentions_line(r, DefectKind::Timeout, 3));
    }
    SUBCASE("a kernel that prints a megabyte") {
        const CheckResult r = check("map", "#include <stdio.h>\n" + head +
                                               "    for (int k = 0; k < 100000; ++k) printf(\"0123456789\\n\");\n}\n");
        CHECK(has(r, DefectKind::OutputLimit));
        CHECK(r.printed.size() <= 64 * 1024);
    }
    SUBCASE("a kernel that asks for 100 GB") {
        const CheckResult r = check("map", "#include <stdlib.h>\n" + head +
                                               "    volatile float* p = (float*)malloc(100ull << 30);\n"
                                               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                               "    if (i < n) out[i] = a[i] + (p == nullptr ? 10 : p[0]);\n}\n");
        // malloc says no (the address-space limit), and the kernel goes on: it passes, unharmed.
#if !defined(__SANITIZE_ADDRESS__)  // (ASan prints a warning per failed allocation: the output limit)
        CHECK(r.passed);
#endif
        CHECK(r.compiled);
    }
    SUBCASE("a kernel that does not compile: the error at its line") {
        const CheckResult r = check("map", head + "    int i = blockIdx.x * blockDim.x + threadIdx.x\n"
                                                  "    if (i < n) out[i] = a[i] + 10;\n}\n");
        CHECK(!r.compiled);
        REQUIRE(has(r, DefectKind::CompileError));
        REQUIRE(!r.compile.diagnostics.empty());
        CHECK(r.compile.diagnostics.front().line >= 2);
        CHECK(r.summary.rfind("Line ", 0) == 0);
    }
    SUBCASE("a renamed kernel: the signature it must keep") {
        const CheckResult r = check("map", "__global__ void my_map(const float* a, float* out, int n) {}\n");
        CHECK(!r.compiled);
        CHECK(defects_text(r).find("must keep its name and parameters: __global__ void map(const float* a, "
                                   "float* out, int n)") != std::string::npos);
    }
    SUBCASE("no compiler on the machine") {
        setenv("GPULAB_CXX", "/nonexistent/g++", 1);
        const Toolchain none = toolchain();
        unsetenv("GPULAB_CXX");
        CHECK(!none.usable());
        CHECK(none.missing.find("install the g++ package") != std::string::npos);
        CheckOptions o;
        o.work_root = scratch("none");
        const CheckResult r = check_submission(none, builtin("map"), builtin("map").solution, o);
        CHECK(!r.passed);
        CHECK(r.summary == none.missing);
    }
}

TEST_CASE("each puzzle's recorded reference run (shown without a compiler) is what the reference does now") {
    const Toolchain tc = toolchain();
    REQUIRE_MESSAGE(tc.usable(), tc.missing);
    const PuzzleLoad load = load_puzzles(source_dir() / "puzzles");
    for (const Puzzle& p : load.puzzles) {
        INFO(p.id << ": run `gpulab puzzle record " << p.id << "` after changing the puzzle");
        std::string error;
        const std::string fresh = record_reference_run(tc, p, error);
        CHECK(error.empty());
        CHECK(fresh == read(p.folder / kReferenceRunFile));
        const std::optional<CheckResult> r = recorded_reference_run(p);
        REQUIRE(r.has_value());
        REQUIRE(r->cases.size() == 1);
        CHECK(r->cases[0].visible);
        CHECK(r->cases[0].report.threads > 0);
        CHECK(!r->cases[0].report.trace.empty());
        CHECK(r->cases[0].inputs.buffers.size() == r->cases[0].report.outputs.size());
    }
    // A recording of another puzzle, or a cut one, is not shown.
    Puzzle other = builtin("map");
    other.id = "guard";
    CHECK(!recorded_reference_run(other).has_value());
}

TEST_CASE("a passing kernel is compiled by nvcc for a GPU and run there, or says why not") {
    const Toolchain tc = toolchain();
    REQUIRE_MESSAGE(tc.usable(), tc.missing);
    if (tc.nvcc.empty()) {
        MESSAGE("SKIPPED: no nvcc on this machine (the CUDA toolkit is optional)");
        return;
    }
    CheckOptions o;
    o.work_root = scratch("gpu");
    // The device's own architecture where there is one (SASS for sm_80 would not load on sm_90);
    // sm_80 elsewhere, which nvcc compiles without a device.
    const gpulab::gpu::GpuProbe& probe = gpulab::gpu::probe();
    o.gpu_arch = probe.device_ok ? probe.cc_major * 10 + probe.cc_minor : 80;
    const CheckResult r = check_submission(tc, builtin("block-sum"), builtin("block-sum").solution, o);
    REQUIRE(r.passed);
    REQUIRE(r.gpu.tried);
    INFO(r.gpu.sentence);
    if (std::getenv("GPULAB_REQUIRE_GPU") != nullptr || r.gpu.ran) {
        CHECK(r.gpu.ran);
        CHECK(r.gpu.outputs_match);
        CHECK(r.gpu.example_ns > 0);
    } else {
        // nvcc built the program (a compile error would say "did not compile"); the device is missing.
        CHECK(r.gpu.sentence.find("Not run on the GPU: no CUDA device here") != std::string::npos);
    }
    // A kernel that fails the checks never reaches the GPU.
    const CheckResult bad = check_submission(tc, builtin("map"), read(builtin("map").folder / "wrong/no-guard.cu"), o);
    CHECK(!bad.gpu.tried);
}

TEST_CASE("child processes: output is capped and a time limit ends the whole process group") {
    ChildOptions o;
    o.argv = {"/bin/sh", "-c", "yes gpulab"};
    o.output_cap = 1000;
    ChildResult r = run_child(o);
    CHECK(r.output_capped);
    CHECK(r.output.size() == 1000);
    o.argv = {"/bin/sh", "-c", "sleep 30 & sleep 30"};
    o.time_limit_ms = 300;
    r = run_child(o);
    CHECK(r.timed_out);
    CHECK(r.seconds < 5.0);
    o.argv = {"/nonexistent/program"};
    r = run_child(o);
    CHECK((!r.started || r.exit_code == 127));
    // A descriptor the app left open without close-on-exec does not reach the child (it would
    // cross into the sandbox with it).
    const int opened = ::open("/dev/null", O_RDONLY);
    const int leaked = fcntl(opened, F_DUPFD, 10);  // a copy at 10 or above, without close-on-exec
    ::close(opened);
    REQUIRE(leaked >= 10);
    ChildOptions fds;
    fds.argv = {"/bin/sh", "-c", "ls /proc/self/fd"};
    const ChildResult listed = run_child(fds);
    ::close(leaked);
    CHECK(listed.exit_code == 0);
    CHECK(("\n" + listed.output).find("\n" + std::to_string(leaked) + "\n") == std::string::npos);
}

}  // TEST_SUITE
