// `gpulab train --workers N [--hostfile FILE]`: data-parallel training in N processes. This is the
// process the user started: it checks what it can before any worker starts (so a bad option is
// one sentence, not N), then runs
//   mpirun -np N [--hostfile FILE] --oversubscribe --bind-to none --mca mpi_yield_when_idle 1
//          -x OMP_NUM_THREADS=K ...
//          <this gpulab> train --rank-worker --worker-threads K <the same training options>
// and waits (mpirun_process.h). Debian's Open MPI carries the workers' gradients (MPI_Allreduce);
// gpulab has no transport of its own. Why those mpirun flags:
//   --oversubscribe  more workers than cores is allowed: a lesson on a 2-core laptop shows 4 workers
//                    fighting for 2 cores, and mpirun would otherwise refuse;
//   --bind-to none   Open MPI pins each worker to one core by default, which would cage a worker's
//                    cpu-parallel threads on that core; the kernel places them instead;
//   --mca mpi_yield_when_idle 1
//                    a worker waiting inside MPI_Allreduce spins; unless it yields, on a machine with
//                    other work (or more workers than cores) it keeps the core from the very worker
//                    it waits for. Measured on a shared 2-core machine (load 5), 93,322 floats between
//                    two workers: 8-14 ms an all-reduce spinning, 0.2-1 ms yielding;
//   K threads        each worker's cpu-parallel pool (and oneDNN's OpenMP) gets cores / N of this
//                    machine, at least 1, so N workers share the machine instead of each taking it all.
// As root (containers), Open MPI refuses to start unless told it may (OMPI_ALLOW_RUN_AS_ROOT).
#include "cli.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_train_setup.h"
#include "distributed/mpi_reducer.h"
#include "distributed/mpirun_report.h"
#include "io/file_io.h"
#include "mpirun_process.h"

namespace gpulab::app {

namespace {

std::string number_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);  // reads back as the same double
    return buf;
}

// The options a worker needs to train exactly as asked: every training option, none of the launcher's.
std::vector<std::string> worker_arguments(const TrainOptions& o, int threads) {
    std::vector<std::string> a = {"train", "--rank-worker", "--worker-threads", std::to_string(threads),
                                  "--backend", o.backend, "--epochs", std::to_string(o.epochs),
                                  "--batch", std::to_string(o.batch), "--seed", std::to_string(o.seed),
                                  "--lr", number_text(o.learning_rate), "--momentum", number_text(o.momentum),
                                  "--precision", o.precision};
    if (o.loss_scale != 0.0) a.insert(a.end(), {"--loss-scale", std::to_string(static_cast<long long>(o.loss_scale))});
    if (o.limit > 0) a.insert(a.end(), {"--limit", std::to_string(o.limit)});
    if (!o.data.empty()) a.insert(a.end(), {"--data", o.data});
    if (!o.model.empty()) a.insert(a.end(), {"--model", o.model});
    if (o.json) a.push_back("--json");
    if (o.layers) a.push_back("--layers");
    if (o.straggler_ms > 0) a.insert(a.end(), {"--straggler-ms", number_text(o.straggler_ms)});
    if (!o.save_params.empty()) a.insert(a.end(), {"--save-params", o.save_params});
    return a;
}

// This executable, so the workers run the very gpulab the user started.
std::string own_executable() {
    std::vector<char> buf(4096);
    const ssize_t n = readlink("/proc/self/exe", buf.data(), buf.size() - 1);
    return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : std::string();
}

// Why --hostfile cannot be used, or "".
std::string hostfile_problem(const std::string& path) {
    if (const std::string special = core::special_file_reason(path); !special.empty()) return special;
    std::ifstream f(path);
    if (!f) return "cannot be read";
    std::string line;
    while (std::getline(f, line)) {
        const std::size_t hash = line.find('#');
        if (line.substr(0, hash).find_first_not_of(" \t\r") != std::string::npos) return "";
    }
    return "names no host (write one per line, e.g. localhost slots=2)";
}

}  // namespace

int cmd_train_launch(const TrainOptions& o) {
    if (!distributed::mpi_built()) {
        std::fprintf(stderr, "gpulab train: %s\n", distributed::mpi_missing_reason().c_str());
        return kExitFailure;
    }
    if (!o.hostfile.empty()) {
        if (const std::string problem = hostfile_problem(o.hostfile); !problem.empty()) {
            std::fprintf(stderr, "gpulab train: the --hostfile %s %s\n", o.hostfile.c_str(), problem.c_str());
            return kExitUsage;
        }
    }
    // The engine's checks once, here: a worker would say the same N times.
    int exit_code = kExitOk;
    const std::unique_ptr<train::TrainEngine> engine = prepare_train_engine(o, exit_code);
    if (!engine) return exit_code;
    if (!engine->takes_summed_gradients()) {
        std::fprintf(stderr,
                     "gpulab train: --workers trains on cpu-scalar, cpu-parallel or cpu-onednn; %s cannot take "
                     "gradients summed over several workers yet\n",
                     o.backend.c_str());
        return kExitUsage;
    }
    const std::string mpirun = find_on_path("mpirun");
    if (mpirun.empty()) {
        std::fprintf(stderr, "gpulab train: --workers starts its workers with mpirun, which is not on PATH: install "
                             "openmpi-bin (sudo apt-get install openmpi-bin)\n");
        return kExitFailure;
    }
    const std::string self = own_executable();
    if (self.empty()) {
        std::fprintf(stderr, "gpulab train: cannot find this program's own path (/proc/self/exe) to start workers\n");
        return kExitFailure;
    }
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int threads = std::max(1, cores / o.workers);
    std::vector<std::string> argv = {mpirun, "-np", std::to_string(o.workers)};
    if (!o.hostfile.empty()) argv.insert(argv.end(), {"--hostfile", o.hostfile});
    argv.insert(argv.end(), {"--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1", "-x", "OMP_NUM_THREADS=" + std::to_string(threads),
                             "-x", "OMP_WAIT_POLICY=passive", self});
    const std::vector<std::string> worker = worker_arguments(o, threads);
    argv.insert(argv.end(), worker.begin(), worker.end());
    std::vector<std::string> environment;
    if (geteuid() == 0) environment = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"};

    const MpirunOutcome r = run_mpirun(argv, environment);
    if (!r.started) {
        std::fprintf(stderr, "gpulab train: %s\n", r.error.c_str());
        return kExitFailure;
    }
    if (r.exit_code == 0) return kExitOk;
    // A worker that said why has said it; a worker killed, or mpirun's own trouble, gets one sentence.
    const std::string said = distributed::mpirun_failure_sentence(r.mpirun_text, r.exit_code);
    const bool killed = said.find("was killed by signal") != std::string::npos;
    if (!r.worker_spoke || killed) std::fprintf(stderr, "gpulab train: %s\n", said.c_str());
    return r.worker_spoke && r.exit_code == kExitUsage ? kExitUsage : kExitFailure;
}

}  // namespace gpulab::app
