// The command line: one binary, subcommands for the GUI, lessons, info, export, bench and apply.
// Bad arguments give a one-line message and exit code 2 (tests/cli_tests.cmake).
#pragma once

#include <string>
#include <vector>

namespace gpulab::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// The built-in lessons/ folder followed by any --lesson-dir folders.
std::vector<std::string> lesson_directories(const std::vector<std::string>& extra);

int cmd_lessons(const std::vector<std::string>& check_files, const std::vector<std::string>& lesson_dirs);
int cmd_info();

struct BenchOptions {
    bool json = false;
    bool quick = false;                 // one small size, few samples: for tests
    std::vector<std::string> ops;       // empty: every activation
    std::vector<std::string> backends;  // empty: every available backend
    std::vector<long long> sizes;       // empty: 2^20 and 2^26 (quick: 2^16)
    std::string suite = "all";          // "activation", "latency" or "all"
};
int cmd_bench(const BenchOptions& options);

struct ApplyOptions {
    std::string op;
    std::string input, output;
    std::string backend = "cpu-parallel";
    double alpha = 0.01;
};
int cmd_apply(const ApplyOptions& options);

}  // namespace gpulab::app
