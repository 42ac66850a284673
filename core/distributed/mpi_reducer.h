// The GradientReducer between processes started by mpirun: MPI_Allreduce and MPI_Allgather over
// MPI_COMM_WORLD. mpi_reducer.cpp is the only file of gpulab that calls MPI; a build without MPI
// (libopenmpi-dev missing) compiles mpi_absent.cpp instead, which says why (core/CMakeLists.txt).
#pragma once

#include <memory>
#include <string>

#include "gradient_reducer.h"

namespace gpulab::distributed {

// Whether this gpulab was built with MPI, and if not, one sentence saying what to install.
bool mpi_built();
std::string mpi_missing_reason();

// This process as one worker of an mpirun job: MPI_Init here, MPI_Finalize when the reducer is
// destroyed. Throws std::runtime_error with a sentence in a build without MPI.
std::unique_ptr<GradientReducer> start_mpi_worker();

// After this worker failed: ends the whole job (MPI_Abort), since the others would wait for it in
// their next sum forever. mpirun then stops every worker. Does not return.
[[noreturn]] void abort_mpi_job(int exit_code);

}  // namespace gpulab::distributed
