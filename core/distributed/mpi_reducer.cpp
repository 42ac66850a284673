// Data-parallel training's sums between processes, over MPI: see mpi_reducer.h. Compiled only
// when CMake found MPI (core/CMakeLists.txt).
#include "mpi_reducer.h"

// mpi.h seen from C++ also declares MPI's old C++ bindings (removed from the standard in MPI-3),
// which live in another library (libmpi_cxx): gpulab calls only the C functions.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <stdexcept>

namespace gpulab::distributed {

namespace {

// MPI counts are int: a message longer than INT_MAX elements goes in pieces.
template <class T>
void allreduce_sum(T* data, std::size_t count, MPI_Datatype type) {
    while (count > 0) {
        const int piece = static_cast<int>(std::min<std::size_t>(count, INT_MAX));
        MPI_Allreduce(MPI_IN_PLACE, data, piece, type, MPI_SUM, MPI_COMM_WORLD);
        data += piece;
        count -= static_cast<std::size_t>(piece);
    }
}

class MpiReducer final : public GradientReducer {
public:
    MpiReducer() {
        int ready = 0;
        MPI_Initialized(&ready);
        if (!ready) MPI_Init(nullptr, nullptr);
        // Errors stay fatal (MPI's default): a lost worker ends the job, and mpirun stops the rest.
        MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
        MPI_Comm_size(MPI_COMM_WORLD, &workers_);
    }
    ~MpiReducer() override {
        int done = 0;
        MPI_Finalized(&done);
        if (!done) MPI_Finalize();
    }
    int rank() const override { return rank_; }
    int workers() const override { return workers_; }
    void sum(std::span<float> values) override { allreduce_sum(values.data(), values.size(), MPI_FLOAT); }
    void sum(std::span<double> values) override { allreduce_sum(values.data(), values.size(), MPI_DOUBLE); }
    std::vector<double> gather(std::span<const double> mine) override {
        if (mine.size() > static_cast<std::size_t>(INT_MAX) / static_cast<std::size_t>(workers_))
            throw std::runtime_error("too many timings to gather in one message");
        std::vector<double> all(mine.size() * static_cast<std::size_t>(workers_));
        MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
                      MPI_DOUBLE, MPI_COMM_WORLD);
        return all;
    }

private:
    int rank_ = 0, workers_ = 1;
};

}  // namespace

bool mpi_built() { return true; }
std::string mpi_missing_reason() { return ""; }

std::unique_ptr<GradientReducer> start_mpi_worker() { return std::make_unique<MpiReducer>(); }

void abort_mpi_job(int exit_code) {
    MPI_Abort(MPI_COMM_WORLD, exit_code);
    std::_Exit(exit_code);  // MPI_Abort should not return; if it does, still end this worker
}

}  // namespace gpulab::distributed
