// Where a data-parallel step's time goes, per worker, from real clock readings (core::now_ns):
//   compute    the worker's own forward, backward and SGD step, and building its batch slice;
//   wait       from the end of its compute until the slowest worker ended its own: the first
//              collective of the step (the loss and accuracy sum) returns only when every worker
//              has called it, so its duration on a worker is that wait (plus one tiny message);
//   all-reduce the gradient sum that follows, when every worker is already there: the transfer.
// A worker's step is the three together; the slowest worker waits least. Gathered on every worker
// once an epoch and summarised for the report. Verified by tests/test_distributed.cpp.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gpulab::distributed {

struct StepTiming {
    std::int64_t compute_ns = 0;
    std::int64_t wait_ns = 0;
    std::int64_t allreduce_ns = 0;
    std::int64_t total_ns() const { return compute_ns + wait_ns + allreduce_ns; }
};

// One worker's steps of an epoch, summed and averaged.
struct WorkerSummary {
    int rank = 0;
    std::int64_t steps = 0;
    std::int64_t compute_ns = 0, wait_ns = 0, allreduce_ns = 0;  // sums over the steps
    // The typical step: on a shared machine a few steps where another program took the core can
    // make the mean several times the median.
    StepTiming median;
    double mean_ms(std::int64_t ns) const { return steps > 0 ? static_cast<double>(ns) / 1e6 / static_cast<double>(steps) : 0.0; }
    // The share of its step time the worker spent computing: 1 is perfect overlap-free scaling of
    // its own work; what is missing went to waiting and to the all-reduce.
    double compute_share() const {
        const std::int64_t total = compute_ns + wait_ns + allreduce_ns;
        return total > 0 ? static_cast<double>(compute_ns) / static_cast<double>(total) : 0.0;
    }
};

WorkerSummary summarise(int rank, std::span<const StepTiming> steps);

// The doubles a worker sends in GradientReducer::gather (three per step) and back.
std::vector<double> pack_timings(std::span<const StepTiming> steps);
// Every worker's steps from the gathered doubles: `workers` lists of equal length.
std::vector<std::vector<StepTiming>> unpack_timings(std::span<const double> gathered, int workers);

// Scaling efficiency of a run on `workers` workers: its images per second over `workers` times
// those of one worker (1 = perfect scaling). 0 where either is unknown.
double scaling_efficiency(double images_per_s, int workers, double one_worker_images_per_s);

}  // namespace gpulab::distributed
