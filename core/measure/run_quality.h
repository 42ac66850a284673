// How much of this machine a measurement really had: the share of all CPUs that OTHER programs
// used while it ran (from /proc/stat's system-wide busy time minus this process's own CPU time),
// and, for the window, how many frames it drew meanwhile. A run on a busy machine is slower than
// the machine can do, and a ratio from it can contradict the lesson (2-core box, issue 25: 0.4x
// "speed-ups", 300x ones); one sentence says so and asks for a re-run instead.
// Verified by tests/test_run_quality.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace gpulab::core {

// One reading of the clocks the judgement needs. ok = false where /proc/stat cannot be read
// (not Linux): the run's quality is then unknown, never guessed.
struct CpuSample {
    bool ok = false;
    int64_t wall_ns = 0;
    int64_t system_busy_ns = 0;  // every CPU's non-idle time since boot (steal included)
    int64_t self_cpu_ns = 0;     // this process, all its threads (window and llvmpipe included)
};
CpuSample sample_cpu();

struct RunQuality {
    bool known = false;        // both samples read and the run long enough to judge
    double others_share = 0;   // other programs' CPU time / (wall time x CPUs), 0..1
    int cpus = 0;
    double seconds = 0;
    int frames_drawn = -1;     // the window's frames during the run; -1: headless
    // Other programs took more than a quarter of the machine: the times are not what it can do.
    bool busy() const { return known && others_share > kBusyShare; }
    static constexpr double kBusyShare = 0.25;
    // One sentence for the screen when busy(), else "".
    std::string warning() const;
    // "other programs used 12 % of the 2 CPUs during the 3.4 s run; the window drew 14 frames",
    // for exports (CSV captions, JSON): always, known or not.
    std::string summary() const;
};

// Runs shorter than this are not judged: /proc/stat counts in 10 ms ticks.
inline constexpr int64_t kShortestJudgedRunNs = 300'000'000;
// Pure, for tests: the quality of the run between two samples on `cpus` CPUs.
RunQuality quality_between(const CpuSample& before, const CpuSample& after, int cpus);

// The last finished run's quality in this process (the window's job worker or the headless
// export sets it), for the exports' captions. Thread-safe; unknown until a run finished.
void set_last_run_quality(const RunQuality& q);
RunQuality last_run_quality();

}  // namespace gpulab::core
