// How `gpulab puzzle check` and `gpulab puzzle grade` say a checked submission: a defect as one
// line, each case's status, the score (cases passed), what the kernel printed (bounded, control
// characters removed) and the whole result as JSON. Verified by tests/cli_tests.cmake
// (cli.puzzle_*).
#pragma once

#include <string>

#include "puzzles/puzzle_check.h"

namespace gpulab::app {

// "race (lines 4, 6) in hidden case \"big\" (n = 1000) and 2 more cases: ..."
std::string defect_line(const puzzles::Defect& d);
// "passed", "wrong answer", a defect's kind ("race"), "not run".
std::string case_status(const puzzles::CaseOutcome& c);
int cases_passed(const puzzles::CheckResult& r);
std::string printed_part(const std::string& printed);
// One JSON object: file, passed, score and max_score (cases), each case's status, what it printed,
// each defect with its kind and lines.
std::string json_result(const std::string& file, const puzzles::CheckResult& r);

}  // namespace gpulab::app
