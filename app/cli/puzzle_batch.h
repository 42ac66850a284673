// Checks many puzzle submissions at once, `jobs` at a time (each in its own confined child
// processes: core/puzzles/sandbox.h), calling `done` as each finishes (under a lock, so it may
// print). What `gpulab puzzle check` and `gpulab puzzle grade` share. A submission's failure, of
// any kind, is its own result: nothing it does stops the others.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "puzzles/puzzle_check.h"

namespace gpulab::app {

struct BatchItem {
    const puzzles::Puzzle* puzzle = nullptr;  // null: not checked (the item's `refused` says why)
    std::string source;
    std::string refused;
};

std::vector<puzzles::CheckResult> check_in_parallel(const puzzles::Toolchain& tc, const std::vector<BatchItem>& items,
                                                    int jobs, const puzzles::CheckOptions& options,
                                                    const std::function<void(std::size_t, const puzzles::CheckResult&)>& done);

}  // namespace gpulab::app
