// A GradientReducer for workers that are threads of one process: the tests run two or three
// DataParallelTrainers side by side with it and compare the weights with one Trainer, which needs
// no mpirun (tests/test_distributed.cpp). Sums are taken in rank order, as one float after the
// other, like a small MPI_Allreduce; every worker gets the same result.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "gradient_reducer.h"

namespace gpulab::distributed {

// The meeting point of `workers` threads. member(rank) is handed to the thread of that rank; the
// group must outlive its members.
class InProcessGroup {
public:
    explicit InProcessGroup(int workers);
    int workers() const { return workers_; }
    std::unique_ptr<GradientReducer> member(int rank);

    // Blocks until every member has deposited its values for this round, then returns them all,
    // in rank order. A member that comes back for the next round waits until the others have
    // read this one.
    std::vector<std::vector<double>> exchange(int rank, std::vector<double> mine);

private:
    const int workers_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::vector<double>> deposits_;
    int arrived_ = 0;
    int left_ = 0;
    bool reading_ = false;  // every member has deposited; they are reading
};

}  // namespace gpulab::distributed
