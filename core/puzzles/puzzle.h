// A kernel puzzle: what the student reads (statement, the picture's kind), the kernel they write
// (its name and parameters, fixed, so the host side can call it), the skeleton they start from,
// the reference solution, and the host side as data: buffers, how each is filled, the launch, and
// the cases a submission is graded on (the visible example and hidden ones chosen to catch the
// usual mistakes). One folder per puzzle, `puzzles/<id>/` (puzzle.toml, skeleton.cu, solution.cu,
// wrong/*.cu), documented in puzzles/README.md; an instructor adds one without rebuilding.
// Plain C++; puzzle.cpp parses with toml++. Verified by tests/test_puzzles.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "int_expression.h"

namespace gpulab::puzzles {

enum class ElemType { F32, I32 };

struct Param {
    std::string type;   // as written: "const float*", "float*", "int", "float"
    std::string name;
    bool pointer = false;
    bool is_const = false;  // a pointer to const: an input the kernel must not write
    ElemType elem = ElemType::F32;
};

// How the host fills a buffer before the launch. None: left as cudaMalloc leaves it (the
// simulator's 0xFF bytes), so a kernel that reads an output it never wrote fails as on a GPU.
enum class Fill { None, Zeros, Random, Ramp, RandomInt };

struct BufferSpec {
    std::string name;        // a pointer parameter's name
    std::string count;       // elements: an expression in the case's variables
    Fill fill = Fill::None;
    bool output = false;     // compared with the reference after the launch
};

struct Case {
    std::string name;        // "n not a multiple of the block (1000)"
    bool visible = false;    // the example the statement shows; the rest are hidden
    Variables vars;
};

struct Puzzle {
    std::string id;
    std::string title;
    int order = 100;
    std::string statement;   // Markdown subset, as lesson bodies
    std::string teaches;     // one line: what the puzzle teaches ("a guard", "a barrier")
    std::string picture;     // how the app draws it: "map", "grid2d", "blocks", "reduce", "matmul"
    std::string kernel;      // the kernel's name
    std::vector<Param> params;
    std::vector<std::string> block, grid;  // x, y, z as expressions (missing ones are 1)
    std::vector<BufferSpec> buffers;
    std::vector<Case> cases;
    double tolerance = 1e-5;   // |got - want| <= tolerance * max(1, |want|)
    // When true, the submission's divergent warps may be no more than the reference's (the
    // divergence puzzle); counted on the visible case.
    bool limit_divergence = false;
    std::filesystem::path folder;
    std::string skeleton, solution;  // file contents
    // wrong/*.cu: the mistakes the checks must catch (tests); each file's first line is
    // "// expect: <kind>" with a kind of defect_kind_name().
    std::vector<std::filesystem::path> wrong;

    // "__global__ void map(const float* a, float* out, int n)"
    std::string signature() const;
};

struct PuzzleLoad {
    std::vector<Puzzle> puzzles;        // sorted by order, then id
    std::vector<std::string> errors;    // "file:line: message", one per broken puzzle
};

// Every puzzle folder under `root` (folders without puzzle.toml are skipped).
PuzzleLoad load_puzzles(const std::filesystem::path& root);
// One folder; errors as in load_puzzles.
PuzzleLoad load_puzzle(const std::filesystem::path& folder);

}  // namespace gpulab::puzzles
