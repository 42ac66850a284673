// What a puzzle submission may contain, decided before the compiler sees it and again on the
// compiled object, outside the student's process: the CUDA a kernel is written in, and nothing
// that could switch gpulab's checks off or reach outside the kernel.
//
// Refused in the source (one sentence with the line): inline assembly (asm), attributes
// (__attribute__, [[...]]), pragmas other than `#pragma unroll` and `#pragma once`, _Pragma,
// names reserved for the compiler (two leading underscores) that are not CUDA's own, gpulab's
// internal names, token pasting (##, which could build any of those), universal character names
// outside strings, #line, and #include of a header outside a short list of CUDA and C/C++ headers.
// Rewritten in place, line numbers kept: `static __shared__` (CUDA allows the redundant static)
// and `#pragma unroll` (g++ does not know it). `extern __shared__` is refused with why.
// Refused in the object file: a call to anything that is not device code (printf, the math
// library, memcpy/memset, new/delete and what C++ itself emits), with the function's name.
// Plain C++; verified by tests/test_source_policy.cpp and the hostile submissions of
// tests/test_puzzle_sandbox.cpp.
#pragma once

#include <string>
#include <vector>

namespace gpulab::puzzles {

struct SourceRefusal {
    int line = 0;
    std::string message;  // "asm (inline assembly) is refused: ..."
};

struct PolicedSource {
    std::string source;                   // what is compiled (the rewrites applied)
    std::vector<SourceRefusal> refusals;  // empty when the source may be compiled
};

PolicedSource police_source(const std::string& source);

// A symbol the compiled kernel needs from outside itself (`nm -u`): "" when a kernel may call it,
// else the sentence saying why not, naming the function as the student wrote it.
std::string refused_symbol(const std::string& mangled);

// The identifier a student wrote to use that symbol ("fopen"; "cout" for a stream's operator), for
// first_line_of.
std::string identifier_written_for(const std::string& mangled);

// The first line of `source` where the identifier `name` appears (0 when none): a refused
// symbol's line.
int first_line_of(const std::string& source, const std::string& name);

}  // namespace gpulab::puzzles
