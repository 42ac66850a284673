// A hostile puzzle submission against each layer of the confinement (issue 40), each layer tested
// on its own where it can be: the source policy (refused before compiling), the compiler's limits,
// the sandbox (bubblewrap: no $HOME, no other files), the runner's seccomp filter (no signal to
// another process, no file opened for writing, no socket, no process) and the page that holds the
// checks' link. The policy is switched off (CheckOptions::police) to prove the layers under it.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "puzzles/puzzle.h"
#include "puzzles/puzzle_check.h"
#include "puzzles/sandbox.h"

using namespace gpulab::puzzles;
namespace fs = std::filesystem;

namespace {

const Puzzle& map_puzzle() {
    static const PuzzleLoad load = load_puzzles(fs::path(GPULAB_SOURCE_DIR) / "puzzles");
    for (const Puzzle& p : load.puzzles)
        if (p.id == "map") return p;
    FAIL("no built-in puzzle map");
    static Puzzle none;
    return none;
}

fs::path sandbox_scratch() {
    const fs::path p = fs::temp_directory_path() / ("gpulab-test-sandbox-" + std::to_string(getpid()));
    fs::create_directories(p);
    return p;
}

CheckResult hostile(const std::string& body, bool police, const std::string& before = "") {
    const Toolchain tc = find_toolchain(fs::path(GPULAB_SOURCE_DIR) / "kernels/puzzle_runner/device", GPULAB_KERNEL_RUNNER);
    REQUIRE_MESSAGE(tc.usable(), tc.missing);
    CheckOptions o;
    o.work_root = sandbox_scratch() / "work";
    o.time_limit_ms = 5000;
    o.police = police;
    return check_submission(tc, map_puzzle(), before + "__global__ void map(const float* a, float* out, int n) {\n" + body +
                                                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                                  "    if (i < n) out[i] = a[i] + 10;\n}\n",
                            o);
}

std::string said(const CheckResult& r) {
    std::string s = r.summary;
    for (const Defect& d : r.defects) s += "\n  " + std::string(defect_kind_name(d.kind)) + ": " + d.message;
    return s;
}

bool has(const CheckResult& r, DefectKind k) {
    for (const Defect& d : r.defects)
        if (d.kind == k) return true;
    return false;
}

}  // namespace

TEST_SUITE("puzzles") {

TEST_CASE("hostile submissions: refused by the source policy with one sentence and no trace") {
    SUBCASE("forging the report through its descriptor") {
        const CheckResult r = hostile("    write(3, \"done\\n\", 5);\n", true,
                                      "extern \"C\" long write(int, const void*, unsigned long);\n");
        INFO(said(r));
        CHECK(!r.passed);
        CHECK(has(r, DefectKind::Forbidden));
        CHECK(r.summary.find("the kernel calls write, which is not a device function") != std::string::npos);
    }
    SUBCASE("switching the checks off") {
        const CheckResult r = hostile("", true, "__attribute__((no_sanitize_thread))\n");
        CHECK(!r.passed);
        CHECK(has(r, DefectKind::Forbidden));
        CHECK(r.summary.rfind("Line 1: __attribute__ is refused", 0) == 0);
    }
    SUBCASE("printing through a host stream (host code: nvcc refuses it in a kernel too)") {
        const CheckResult r = hostile("    std::cout << a[0];\n", true, "#include <iostream>\n");
        INFO(said(r));
        CHECK(!r.passed);
        CHECK(r.summary.find("prints with printf") != std::string::npos);
    }
    SUBCASE("killing the grader") {
        const CheckResult r = hostile("    kill(getppid(), SIGKILL);\n", true, "#include <signal.h>\n#include <unistd.h>\n");
        CHECK(!r.passed);
        CHECK(r.summary.find("#include <signal.h> is refused") != std::string::npos);
    }
}

TEST_CASE("hostile submissions: the runner's seccomp filter holds without the source policy") {
    SUBCASE("a signal to another process (the grader) is stopped") {
        const pid_t me = getpid();
        const CheckResult r = hostile("    syscall(SYS_tgkill, " + std::to_string(me) + ", " + std::to_string(me) + ", SIGKILL);\n"
                                      "    syscall(SYS_kill, " + std::to_string(me) + ", SIGKILL);\n",
                                      false, "#include <signal.h>\n#include <sys/syscall.h>\n#include <unistd.h>\n");
        INFO(said(r));
        CHECK(!r.passed);
        CHECK(has(r, DefectKind::Forbidden));
        CHECK(said(r).find("tgkill") != std::string::npos);
    }
#if !defined(__SANITIZE_ADDRESS__)  // (under ASan the runner allows fcntl: ASan's crash report uses it)
    SUBCASE("duplicating a descriptor is stopped") {
        const CheckResult r = hostile("    fcntl(1, F_DUPFD, 3);\n", false, "#include <fcntl.h>\n");
        CHECK(!r.passed);
        CHECK(said(r).find("fcntl") != std::string::npos);
    }
#endif
    SUBCASE("a file opened for writing, a socket, a process") {
        const CheckResult w = hostile("    FILE* f = fopen(\"/tmp/gpulab-escape\", \"w\"); if (f) fputs(\"x\", f);\n", false,
                                      "#include <stdio.h>\n");
        CHECK(has(w, DefectKind::Forbidden));
        CHECK(said(w).find("open a file for writing") != std::string::npos);
        const CheckResult s = hostile("    socket(AF_INET, SOCK_STREAM, 0);\n", false, "#include <sys/socket.h>\n");
        CHECK(said(s).find("network connection") != std::string::npos);
        const CheckResult f = hostile("    fork();\n", false, "#include <unistd.h>\n");
        CHECK(said(f).find("new process") != std::string::npos);
    }
}

TEST_CASE("hostile submissions: the checks' link cannot be overwritten from the kernel's own data") {
    // A walk over the shared object's data around a __device__ variable reaches the runtime's page,
    // which is read-only once bound: the store faults, and nothing passes.
    const CheckResult r = hostile("    for (long k = 0; k < 65536; ++k) ((volatile char*)&v)[k] = 0;\n"
                                  "    for (long k = 0; k > -65536; --k) ((volatile char*)&v)[k] = 0;\n", false,
                                  "__device__ float v;\n");
    INFO(said(r));
    CHECK(!r.passed);
    CHECK((has(r, DefectKind::Crash) || has(r, DefectKind::OutOfBounds)));
}

TEST_CASE("hostile submissions: the compiler's memory and file size are capped") {
    // 1.2 GB of initialised data: the assembler would write it all into the scratch folder.
    const CheckResult r = hostile("    out[0] = big[n];\n", true, "__device__ float big[300000000] = {1.0f};\n");
    INFO(said(r));
    CHECK(!r.compiled);
    CHECK((r.summary.find("64 MiB") != std::string::npos || r.summary.find("1 GiB") != std::string::npos));
}

TEST_CASE("hostile submissions: a macro that explodes in the compiler stops at its memory cap") {
    // 10^8 tokens from eight nested macros: cc1plus asks for far more than 1 GiB, and stops at once.
    const CheckResult r = hostile("", true,
                                  "#define A(x) x x x x x x x x x x\n#define B(x) A(A(A(A(A(A(A(A(x))))))))\n"
                                  "inline int f() { return 0 B(+1); }\n");
    INFO(said(r));
    CHECK(!r.compiled);
    CHECK(r.summary.find("more than 1 GiB of memory") != std::string::npos);
}

TEST_CASE("hostile submissions: in the sandbox the compiler and the kernel see no private file") {
    const SandboxStatus& s = sandbox_status();
    if (!s.confined) {
        MESSAGE("not confined here, so not tested: " << s.sentence);
        return;
    }
    const fs::path secret = sandbox_scratch() / "private" / "secret.txt";
    fs::create_directories(secret.parent_path());
    std::ofstream(secret) << "gpulab-private-42\n";
    // At compile time (the policy off: it would refuse the #include before the compiler saw it).
    const CheckResult c = hostile("", false, "#include \"" + secret.string() + "\"\n");
    CHECK(!c.compiled);
    CHECK(c.compile.raw.find("gpulab-private-42") == std::string::npos);
    CHECK(c.compile.raw.find("No such file") != std::string::npos);
    // At run time: the file is not there to read.
    const CheckResult r = hostile("    FILE* f = fopen(\"" + secret.string() + "\", \"r\");\n"
                                  "    char b[64] = {0};\n"
                                  "    if (blockIdx.x == 0 && threadIdx.x == 0) printf(\"%s\\n\", f && fgets(b, 64, f) ? b : \"hidden\");\n",
                                  false, "#include <stdio.h>\n");
    CHECK(r.printed.find("gpulab-private-42") == std::string::npos);
    CHECK(r.printed.find("hidden") != std::string::npos);
}

}  // TEST_SUITE
