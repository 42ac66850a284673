// Confines gpulab-kernel-runner before it loads a student's kernel, so that grading 30 strangers'
// submissions on an instructor's laptop is safe: what is enforced, and what is not, is in
// docs/architecture.md ("Checking a student's kernel", "Confinement and what a verdict promises"). Linux only (libseccomp).
//
//   seccomp   every system call not on the list stops the process with a sentence naming it
//             (SIGSYS): no files opened for writing, no sockets, no new processes or threads, no
//             exec, signals only to itself, fcntl only to read flags; files may be opened
//             read-only (loading the kernel's shared object needs it; the sandbox around the
//             runner, core/puzzles/sandbox.h, leaves only /usr and the job to read)
//   rlimits   address space (a kernel that allocates 100 GB gets nothing), CPU time (a backstop
//             for the wall-clock timer), file size 0, no core dumps
//
// Verified by tests/test_puzzle_sandbox.cpp: with the source policy off, a kernel that signals
// another process, duplicates a descriptor, writes a file, opens a socket or forks is stopped
// with its sentence.
#pragma once

#include <cstddef>
#include <string>

namespace gpulab::puzzle_runner {

// Descriptor the report goes to; the SIGSYS handler writes "forbidden <call>" there.
inline constexpr int kReportFd = 3;

// "" when confined, else why not (the runner then refuses to run the kernel).
std::string confine(std::size_t memory_bytes, int cpu_seconds);

}  // namespace gpulab::puzzle_runner
