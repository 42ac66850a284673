// What can be wrong with a student's kernel, in the plain words `gpulab puzzle check` and the app
// use ("out of bounds", "race", ...), and a defect as reported: its kind, one sentence, and where.
// Plain C++. Verified by tests/test_puzzles.cpp.
#pragma once

#include <string>
#include <vector>

namespace gpulab::puzzles {

enum class DefectKind {
    CompileError,   // the compiler refused the file
    WrongAnswer,    // ran cleanly, output differs from the reference
    OutOfBounds,    // global, shared or local access outside what the kernel was given
    Race,           // two threads, one barrier interval (shared) or no ordering (global), one word
    Barrier,        // a __syncthreads() not reached by every thread of the block
    Uninitialised,  // a read of memory nothing wrote (device memory is not zeroed)
    Misaligned,     // a vector access not aligned to its size
    WarpMask,       // a warp intrinsic whose mask names a lane that cannot arrive
    LaunchRefused,  // a launch a GPU would refuse: too many threads, too much shared memory
    Divergence,     // more divergent warps than the reference (the divergence puzzle)
    Unsupported,    // an intrinsic the simulator cannot model faithfully (clock64, __activemask)
    Timeout,        // did not finish within the time limit
    Crash,          // the kernel's process died (a signal)
    Forbidden,      // tried to write a file, open a socket, start a process
    MemoryLimit,    // asked for more memory than a kernel run may use
    OutputLimit,    // printed more than a kernel run may print
    StackOverflow,  // a CUDA thread needed more than its stack (deep recursion, a large local array)
};

// "out of bounds", "race", ... (stable: JSON, tests and wrong/*.cu's "// expect:" lines use them).
const char* defect_kind_name(DefectKind k);
// The kind named `name`; false when no kind has that name.
bool defect_kind_from_name(const std::string& name, DefectKind& out);
// The kind of a simulator message (its checks' sentences start with their kind).
DefectKind classify_simulator_message(const std::string& message);

struct Defect {
    DefectKind kind = DefectKind::WrongAnswer;
    std::string message;   // one or a few sentences, with source lines where known
    std::vector<int> lines;  // the student's source lines involved (first: where it happened)
    std::string where;     // the first case it happened in ("hidden case \"...\" (n = 1000)")
    int repeats = 0;       // how many more cases failed the same way (same kind, same lines)
};

}  // namespace gpulab::puzzles
