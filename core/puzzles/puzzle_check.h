// Grades one submission of a puzzle: compile it (kernel_compile.h), run it on every case in a
// confined child (gpulab-kernel-runner), compare each output with the reference solution's on the
// same inputs, and turn every defect the checks found into a sentence with the student's source
// lines. What the app's Run button, `gpulab puzzle check` and the tests call. Plain C++; safe to
// call from several threads at once (the reference runs are cached per puzzle). Verified by
// tests/test_puzzles.cpp: every puzzle's reference passes and every wrong/*.cu fails with the
// defect its first line expects.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "defect.h"
#include "kernel_compile.h"
#include "kernel_job.h"
#include "puzzle.h"

namespace gpulab::puzzles {

struct CheckOptions {
    int time_limit_ms = 5000;            // the whole run, every case
    bool trace = false;                  // record who touched what in block 0 of the visible case
    std::filesystem::path work_root;     // a scratch folder per check is made here (empty: the cache folder)
    bool keep_work = false;              // leave the scratch folder (tests, debugging)
    std::function<void(const std::string&)> progress;  // "compiling...", "running 3 cases..."
    std::function<bool()> cancelled;
    // > 0: after the simulator found the kernel clean and right, compile it with nvcc for this
    // compute capability (86 = sm_86) and run every case on the GPU too (CheckResult::gpu).
    int gpu_arch = 0;
    // false: compile without the source policy (source_policy.h). Only the tests that prove the
    // sandbox and seccomp hold on their own set it; nothing a student or grader reaches does.
    bool police = true;
};

// The same kernel on a real GPU (CheckOptions::gpu_arch), compared with the reference and timed.
struct GpuRun {
    bool tried = false;       // asked for, and the simulated run was clean and right
    bool ran = false;         // every case ran on the GPU
    std::string device;       // its name
    std::string sentence;     // what happened, for the results ("not run: ...", "outputs differ ...")
    bool outputs_match = false;
    int64_t example_ns = 0;   // the example's kernel time on the GPU, median of 5 launches
    double compile_seconds = 0.0;
};

struct CaseOutcome {
    std::string name;
    bool visible = false;
    bool ran = false;
    bool passed = false;
    int64_t elements = 0, elements_wrong = 0;
    std::string mismatch;      // "out[1000] is nan, expected 12.5"
    CaseReport report;         // counters, outputs, trace
    JobCase inputs;            // what the host gave the kernel
    std::vector<std::vector<std::byte>> expected;  // the reference's outputs (per buffer)
};

struct CheckResult {
    bool compiled = false;
    bool passed = false;                // compiled, every case ran clean and matched
    std::vector<Defect> defects;        // one per case at most, the same defect said once
    std::vector<CaseOutcome> cases;
    CompileResult compile;
    std::string printed;                // what the kernel printed (printf), capped
    std::string summary;                // one sentence for the status line
    double run_seconds = 0.0;           // the runner's wall time, every case
    double run_cpu_seconds = 0.0;       // its CPU time
    GpuRun gpu;
};

// The scratch root: $XDG_CACHE_HOME/gpulab/kernels (or ~/.cache/gpulab/kernels).
std::filesystem::path default_work_root();

// The job a puzzle's cases make for `library` (inputs filled from a seed per puzzle and case, so
// the reference and the submission see the same data).
KernelJob make_job(const Puzzle& p, const std::string& library, int time_limit_ms, bool trace);

CheckResult check_submission(const Toolchain& tc, const Puzzle& p, const std::string& source,
                             const CheckOptions& options);

// What an instructor's new puzzle must satisfy beyond parsing (`gpulab lessons --check`, the tests):
// its solution.cu passes, its skeleton.cu compiles, and every wrong/*.cu fails with the defect its
// first line ("// expect: <kind>") names. One sentence per problem; empty when the puzzle is sound.
std::vector<std::string> validate_puzzle(const Toolchain& tc, const Puzzle& p, const CheckOptions& options);

// Reference outputs are cached per puzzle (and solution text); tests that edit a puzzle call this.
void forget_references();

}  // namespace gpulab::puzzles
