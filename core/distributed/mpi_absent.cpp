// Data-parallel training in a build without MPI: says what to install (see mpi_reducer.h).
#include "mpi_reducer.h"

#include <cstdlib>
#include <stdexcept>

namespace gpulab::distributed {

bool mpi_built() { return false; }

std::string mpi_missing_reason() {
    return "--workers needs MPI, and this gpulab was built without it: install openmpi-bin and libopenmpi-dev "
           "(scripts/install-deps.sh does) and build gpulab again";
}

std::unique_ptr<GradientReducer> start_mpi_worker() { throw std::runtime_error(mpi_missing_reason()); }

void abort_mpi_job(int exit_code) { std::_Exit(exit_code); }

}  // namespace gpulab::distributed
