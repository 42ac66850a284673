// `gpulab bench --suite puzzles`: what a student waits for after pressing Run, and how fast the
// checked simulator runs a student's kernel (issue 28's targets, docs/benchmarks.md):
//   - per built-in puzzle, its reference solution checked as a submission (compile + every case,
//     the reference's own run already cached, as after the first Run): compile, run and total time;
//   - the map kernel on 2^20 elements: simulated CUDA threads per second of wall time and per
//     CPU-second of the runner, with every check on (bounds, races, never-written reads, barriers,
//     divergence, sectors, bank conflicts). The simulator's time, never a GPU time.
// Not part of `--suite all` (it needs g++ and measures the simulator, not a backend).
#include <chrono>
#include <cstdio>
#include <string>

#include "cli_bench_puzzles.h"
#include "json_out.h"
#include "puzzles/puzzle_check.h"
#include "render/resources.h"

namespace gpulab::app {

int bench_puzzles(const BenchOptions& o, bool& first) {
    const puzzles::Toolchain tc = puzzles::find_toolchain(student_device_dir(), kernel_runner_path());
    if (!tc.usable()) {
        std::fprintf(stderr, "gpulab: %s.\n", tc.missing.c_str());
        return 1;
    }
    const puzzles::PuzzleLoad load = puzzles::load_puzzles(puzzle_dir());
    int failures = 0;
    if (!o.json) {
        std::printf("\nKernel puzzles: a submission checked (compile with g++, run every case in the checked "
                    "simulator); simulated, not a GPU time\n");
        std::printf("  %-16s %6s %10s %10s %10s %8s\n", "puzzle", "cases", "compile", "run", "total", "result");
    }
    for (const puzzles::Puzzle& p : load.puzzles) {
        bench_progress("bench: puzzle %s...\n", p.id.c_str());
        puzzles::CheckOptions co;
        (void)puzzles::check_submission(tc, p, p.solution, co);  // caches the reference's run
        const auto start = std::chrono::steady_clock::now();
        const puzzles::CheckResult r = puzzles::check_submission(tc, p, p.solution, co);
        const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        failures += r.passed ? 0 : 1;
        if (o.json) {
            json_record(first, "\"op\": \"puzzle\", \"simulated\": true, \"puzzle\": " + json_string(p.id) +
                                   ", \"cases\": " + std::to_string(r.cases.size()) +
                                   ", \"compile_s\": " + json_number(r.compile.seconds) +
                                   ", \"run_s\": " + json_number(r.run_seconds) + ", \"total_s\": " + json_number(total) +
                                   ", \"passed\": " + (r.passed ? "true" : "false"));
        } else {
            std::printf("  %-16s %6zu %9.2fs %9.2fs %9.2fs %8s\n", p.id.c_str(), r.cases.size(), r.compile.seconds,
                        r.run_seconds, total, r.passed ? "pass" : "FAIL");
        }
    }
    // Throughput: the map puzzle's reference on one large case.
    for (const puzzles::Puzzle& p : load.puzzles) {
        if (p.id != "map") continue;
        puzzles::Puzzle big = p;
        big.folder = p.folder / "bench-2^20";  // its own reference cache entry
        const int64_t n = o.quick ? (int64_t{1} << 16) : (int64_t{1} << 20);
        big.cases = {puzzles::Case{"2^20 elements", true, {{"n", n}}}};
        bench_progress("bench: map on %lld elements...\n", static_cast<long long>(n));
        puzzles::CheckOptions co;
        co.time_limit_ms = 60000;
        const puzzles::CheckResult r = puzzles::check_submission(tc, big, big.solution, co);
        if (!r.passed || r.cases.empty()) {
            std::fprintf(stderr, "gpulab: map on %lld elements: %s\n", static_cast<long long>(n), r.summary.c_str());
            ++failures;
            break;
        }
        const auto& c = r.cases.front().report;
        const double wall = static_cast<double>(c.wall_ns) * 1e-9;
        const double per_wall = wall > 0 ? static_cast<double>(c.threads) / wall : 0.0;
        const double per_cpu = r.run_cpu_seconds > 0 ? static_cast<double>(c.threads) / r.run_cpu_seconds : 0.0;
        if (o.json) {
            json_record(first, "\"op\": \"puzzle-throughput\", \"simulated\": true, \"kernel\": \"map\", \"threads\": " +
                                   std::to_string(c.threads) + ", \"launch_s\": " + json_number(wall) +
                                   ", \"runner_cpu_s\": " + json_number(r.run_cpu_seconds) +
                                   ", \"threads_per_s\": " + json_number(per_wall) +
                                   ", \"threads_per_cpu_s\": " + json_number(per_cpu));
        } else {
            std::printf("  map kernel, %lld threads, every check on: launch %.3f s (%.3g threads/s); the runner's CPU "
                        "time %.3f s, whole process (%.3g threads per CPU-second)\n",
                        static_cast<long long>(c.threads), wall, per_wall, r.run_cpu_seconds, per_cpu);
        }
    }
    return failures;
}

}  // namespace gpulab::app
