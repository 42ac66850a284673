// What data-parallel training needs from the workers' transport, and nothing more: who am I, how
// many are we, add these numbers up over all of us, and hand everyone everybody's numbers. Two
// implementations: MPI between processes (mpi_reducer.h, the only file that calls MPI) and threads
// of one process (in_process_reducer.h), so the training logic is tested without mpirun.
//
// Every call is collective: it returns on a worker only once every worker has made the same call
// (same order, same sizes), which is what lets the trainer measure how long a worker waited for
// the slowest (data_parallel_trainer.h).
#pragma once

#include <span>
#include <vector>

namespace gpulab::distributed {

class GradientReducer {
public:
    virtual ~GradientReducer() = default;
    virtual int rank() const = 0;     // 0 .. workers() - 1
    virtual int workers() const = 0;

    // Element-wise sum over every worker's `values`, written back into `values` on every worker
    // (MPI_Allreduce with MPI_SUM). All workers end with the same numbers.
    virtual void sum(std::span<float> values) = 0;
    virtual void sum(std::span<double> values) = 0;

    // Every worker's `mine` (the same length on each), one after another in rank order, on every
    // worker (MPI_Allgather): the per-step timings, gathered once an epoch.
    virtual std::vector<double> gather(std::span<const double> mine) = 0;
};

}  // namespace gpulab::distributed
