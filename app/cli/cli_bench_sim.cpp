// `gpulab bench --suite sim`: how fast the SIMT simulator behind cuda-sim runs the real kernels at
// the lessons' default sizes (kernels/sim/sim_bench.h): simulated CUDA threads per second and barrier
// crossings per second. The simulator's own time on this CPU, never a GPU time: every line and
// record says "simulated". Not part of `--suite all`. Numbers recorded in docs/benchmarks.md.
#include <cstdio>
#include <string>

#include "cli.h"
#include "cli_bench_sim.h"
#include "measure/format.h"
#include "json_out.h"
#include "sim/sim_bench.h"

namespace gpulab::app {

int bench_sim(const BenchOptions& o, bool& first) {
    const int repeats = o.quick ? 1 : 9;
    int failures = 0;
    if (!o.json) {
        std::printf("\nSIMT simulator (cuda-sim): the real kernels on the CPU, every CUDA thread a fiber; simulated "
                    "time, not a GPU time\n");
        std::printf("  %-26s %-12s %10s %10s %10s %16s %18s\n", "kernel", "blocks on", "threads", "wall", "CPU",
                    "threads/CPU-s", "crossings/CPU-s");
    }
    for (const bool one_thread : {true, false}) {
        bench_progress("bench: simulator, %s...\n", one_thread ? "one thread" : "thread pool");
        for (const sim::SimBenchRow& r : sim::run_sim_bench(repeats, one_thread)) {
            if (!r.ok) {
                std::fprintf(stderr, "gpulab: simulated %s: %s\n", r.name.c_str(), r.error.c_str());
                ++failures;
                continue;
            }
            const double cpu_s = static_cast<double>(r.cpu_ns) * 1e-9;
            const double threads_per_cpu_s = cpu_s > 0 ? static_cast<double>(r.threads) / cpu_s : 0.0;
            const double crossings_per_cpu_s = cpu_s > 0 ? static_cast<double>(r.barrier_crossings) / cpu_s : 0.0;
            if (o.json) {
                json_record(first, "\"op\": \"sim\", \"backend\": \"cuda-sim\", \"simulated\": true, \"kernel\": " +
                                       json_string(r.name) + ", \"blocks_on\": " +
                                       json_string(one_thread ? "one thread" : "thread pool") +
                                       ", \"threads\": " + std::to_string(r.threads) +
                                       ", \"barrier_crossings\": " + std::to_string(r.barrier_crossings) +
                                       ", \"median_ns\": " + std::to_string(r.median_ns) +
                                       ", \"cpu_ns\": " + std::to_string(r.cpu_ns) +
                                       ", \"threads_per_cpu_s\": " + json_number(threads_per_cpu_s) +
                                       ", \"crossings_per_cpu_s\": " + json_number(crossings_per_cpu_s));
            } else {
                std::printf("  %-26s %-12s %10lld %10s %10s %16.3g %18.3g\n", r.name.c_str(),
                            one_thread ? "one thread" : "thread pool", static_cast<long long>(r.threads),
                            core::format_duration(r.median_ns).c_str(), core::format_duration(r.cpu_ns).c_str(),
                            threads_per_cpu_s, crossings_per_cpu_s);
            }
        }
    }
    return failures;
}

}  // namespace gpulab::app
