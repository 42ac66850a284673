// Compiles a student's kernel (one .cu file: the kernel and its __device__ helpers) with the
// machine's own g++ into a shared object for gpulab-kernel-runner: -include student_cuda.h, every
// load and store routed through the runner's checks (-fsanitize=kernel-address with outlined
// calls), every basic block reported (-fsanitize-coverage=trace-pc, for divergence), frames that
// probe their stack pages (-fstack-clash-protection: a huge local array meets the guard page), -g
// for source lines. A generated launcher appended after the student's code calls the kernel with
// the puzzle's parameters, so a renamed kernel or changed parameter list is a compile error said
// in one sentence. Plain C++ (runs the compiler with child_process.h). Verified by
// tests/test_puzzles.cpp.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "puzzle.h"

namespace gpulab::puzzles {

// What checking a kernel needs on this machine. `missing` says, in one sentence with the package to
// install, what is absent (then nothing can be compiled; statements and references still show).
struct Toolchain {
    std::filesystem::path compiler;     // g++ ($GPULAB_CXX overrides)
    std::filesystem::path device_dir;   // holds student_cuda.h and student_abi.h
    std::filesystem::path runner;       // gpulab-kernel-runner
    std::filesystem::path addr2line;    // binutils; lines in messages need it
    std::filesystem::path nm;           // binutils; lists what a compiled kernel calls (source_policy.h)
    std::filesystem::path nvcc;         // the CUDA toolkit's compiler, for the GPU run (empty: none)
    std::string missing;
    bool usable() const { return missing.empty(); }
};

// `device_dir` and `runner` are where the caller found them (app/: next to the binary or in the
// data folder); an empty path means not found.
Toolchain find_toolchain(const std::filesystem::path& device_dir, const std::filesystem::path& runner);

struct Diagnostic {
    int line = 0, column = 0;  // in the student's file; 0 when the message is about the launcher
    bool error = true;         // error (else warning)
    std::string message;
};

struct CompileResult {
    bool ok = false;
    std::filesystem::path library;   // the shared object, when ok
    std::vector<Diagnostic> diagnostics;
    std::string sentence;            // when !ok: one sentence for the status line
    bool refused = false;            // refused by the source policy (source_policy.h), not by the compiler
    std::string raw;                 // the compiler's whole output (for a tooltip)
    double seconds = 0.0;
};

// The launcher appended after the student's code (tests read it).
std::string launcher_source(const Puzzle& p);

// How the compiler, the linker and binutils are confined (sandbox.h) and limited: a submission
// that asks the compiler for a 1 GB initialised array or an endless template recursion ends with a
// sentence, not a full disk or a swapping machine.
inline constexpr std::size_t kCompilerMemoryBytes = std::size_t{1} << 30;  // address space
inline constexpr std::size_t kCompilerFileBytes = std::size_t{64} << 20;   // any file it writes
inline constexpr int kCompilerSeconds = 30;

// For a real GPU: kernel.cu with a <<<grid, block>>> launcher and device/gpu_harness.cuh, compiled
// by nvcc for compute capability `arch` (86 for sm_86) into the program `kernel_gpu` in `work`
// (time limit 120 s). Needs Toolchain::nvcc.
CompileResult compile_kernel_gpu(const Toolchain& tc, const Puzzle& p, const std::string& source,
                                 const std::filesystem::path& work, int arch,
                                 const std::function<bool()>& cancelled = {});

// Writes kernel.cu and build.cc into `work` and compiles kernel.so there (time limit 30 s). The
// source is policed first (source_policy.h), and so is what the compiled object calls.
// `police` false skips the policy (the tests that prove each confinement layer holds alone).
CompileResult compile_kernel(const Toolchain& tc, const Puzzle& p, const std::string& source,
                             const std::filesystem::path& work, const std::function<bool()>& cancelled = {},
                             bool police = true);

}  // namespace gpulab::puzzles
