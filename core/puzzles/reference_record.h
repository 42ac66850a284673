// The reference solution's run on a puzzle's example, recorded in the puzzle's folder
// (reference-run.txt) so that a machine without a compiler still shows what the reference did:
// which thread of block 0 touched which element, and the simulator's counts. Written by
// `gpulab puzzle record` (on a machine with g++), read by the puzzles view when there is no
// compiler. The text is the runner's report of the example (kernel_job.h), with the wall time left
// out so that a recording is the same on every machine; tests/test_puzzles.cpp checks every
// built-in puzzle's recording against a fresh run. Plain C++.
#pragma once

#include <optional>
#include <string>

#include "puzzle_check.h"

namespace gpulab::puzzles {

inline constexpr const char* kReferenceRunFile = "reference-run.txt";

// Runs the reference on the visible case with its trace; the file's text, or "" with `error` set.
std::string record_reference_run(const Toolchain& tc, const Puzzle& p, std::string& error);

// The recording in the puzzle's folder as a check of the reference (the visible case only, its
// trace and counts, summary saying it was recorded); empty when there is none or it is unreadable.
std::optional<CheckResult> recorded_reference_run(const Puzzle& p);

}  // namespace gpulab::puzzles
