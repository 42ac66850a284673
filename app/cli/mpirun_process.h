// Running mpirun for `gpulab train --workers` (cli_train_launch.cpp) and watching it: its standard
// output is the terminal's (rank 0's report); its standard error is read line by line, the
// workers' own sentences passed on (each once: every worker may say the same), mpirun's banners
// kept back for one sentence at the end (distributed/mpirun_report.h). GPULAB_MPI_VERBOSE=1 passes
// everything on.
//
// No worker outlives the launcher: mpirun is started with a parent-death signal (SIGTERM if this
// process dies, even by SIGKILL), SIGINT, SIGTERM and SIGHUP here are passed on to it, and mpirun
// stops its workers when it is told to stop or when one of them dies.
#pragma once

#include <string>
#include <vector>

namespace gpulab::app {

// The program's path when `name` is an executable on PATH, else "".
std::string find_on_path(const std::string& name);

struct MpirunOutcome {
    int exit_code = 0;            // mpirun's, or 128 + signal when it was killed
    bool started = false;         // false: the fork or exec failed (`error` says why)
    bool worker_spoke = false;    // a worker's sentence was passed on
    std::string mpirun_text;      // what mpirun itself wrote on stderr
    std::string error;
};

// Runs `argv` (argv[0] is mpirun's path) with `environment` added to this process's, and waits.
MpirunOutcome run_mpirun(const std::vector<std::string>& argv, const std::vector<std::string>& environment);

}  // namespace gpulab::app
