// One worker of `gpulab train --workers N`, started by mpirun with the hidden --rank-worker flag
// (cli_train_launch.cpp builds that command line). Every worker loads the data, builds the same
// model from the same seed and trains on its slice of every batch (distributed/data_parallel_trainer.h);
// rank 0 alone prints, the same report as a single-process run plus each worker's time per step.
// A worker that fails says why and ends the whole job (MPI_Abort): the others would otherwise wait
// for it in their next all-reduce forever. All of them fail alike on bad data or settings, so the
// launcher prints a repeated sentence once.
#include "cli.h"

#include <cstdio>
#include <string>

#include "cli_train_report.h"
#include "cli_train_setup.h"
#include "distributed/data_parallel_trainer.h"
#include "distributed/mpi_reducer.h"
#include "io/image_io.h"
#include "json_out.h"
#include "measure/format.h"
#include "runtime/thread_pool.h"
#include "train/dataset.h"

namespace gpulab::app {

namespace {

std::string per_worker_json(const distributed::DataParallelEpoch& e) {
    std::string out = "[";
    for (const distributed::WorkerSummary& w : e.workers) {
        if (out.size() > 1) out += ", ";
        out += "{\"rank\": " + std::to_string(w.rank) + ", \"steps\": " + std::to_string(w.steps) +
               ", \"compute_ms_per_step\": " + json_number(w.mean_ms(w.compute_ns)) +
               ", \"wait_ms_per_step\": " + json_number(w.mean_ms(w.wait_ns)) +
               ", \"allreduce_ms_per_step\": " + json_number(w.mean_ms(w.allreduce_ns)) +
               ", \"compute_share\": " + json_number(w.compute_share()) +
               ", \"median_ms\": {\"compute\": " + json_number(w.median.compute_ns / 1e6) +
               ", \"wait\": " + json_number(w.median.wait_ns / 1e6) +
               ", \"allreduce\": " + json_number(w.median.allreduce_ns / 1e6) + "}}";
    }
    return out + "]";
}

void print_workers(const distributed::DataParallelEpoch& e) {
    for (const distributed::WorkerSummary& w : e.workers)
        std::printf("      worker %d per step: compute %s ms, waiting for the slowest %s ms, all-reduce %s ms "
                    "(medians %s, %s, %s ms); %s %% of its time computing\n",
                    w.rank, core::format_fixed(w.mean_ms(w.compute_ns), 2).c_str(),
                    core::format_fixed(w.mean_ms(w.wait_ns), 2).c_str(),
                    core::format_fixed(w.mean_ms(w.allreduce_ns), 2).c_str(),
                    core::format_fixed(w.median.compute_ns / 1e6, 2).c_str(),
                    core::format_fixed(w.median.wait_ns / 1e6, 2).c_str(),
                    core::format_fixed(w.median.allreduce_ns / 1e6, 2).c_str(),
                    core::format_fixed(100.0 * w.compute_share(), 0).c_str());
}

int train_as_worker(const TrainOptions& o, distributed::GradientReducer& reducer) {
    const bool speaker = reducer.rank() == 0;
    int exit_code = kExitOk;
    std::unique_ptr<train::TrainEngine> engine = prepare_train_engine(o, exit_code);
    if (!engine) return exit_code;
    const train::Dataset data = train::load_dataset(o.data.empty() ? train::kFashionMnistDir : o.data, o.limit);
    distributed::Straggler straggler;
    if (o.straggler_ms > 0) straggler = {reducer.workers() - 1, static_cast<std::int64_t>(o.straggler_ms * 1e6)};
    distributed::DataParallelTrainer trainer(*engine, data, train_config(o), reducer, straggler);
    const train::ModelDesc& m = trainer.model();
    if (speaker && !o.json) {
        print_train_header(o, *engine, data, m);
        std::printf("data-parallel: %d workers over MPI, %lld images of each batch apiece at most, gradients "
                    "summed with MPI_Allreduce every step%s\n",
                    reducer.workers(), static_cast<long long>(trainer.local_batch()),
                    o.straggler_ms > 0 ? (", worker " + std::to_string(straggler.rank) + " delayed " +
                                          core::format_fixed(o.straggler_ms, 1) + " ms a step").c_str()
                                       : "");
        print_epoch_columns();
        std::fflush(stdout);
    }
    if (speaker && o.json) std::printf("[");
    // --json: a failure half-way still closes the array, as in a single-process run.
    struct CloseArray {
        bool open;
        ~CloseArray() {
            if (open) std::printf("\n]\n");
        }
    } array{speaker && o.json};
    bool first = true;
    for (int epoch = 1; epoch <= o.epochs; ++epoch) {
        const distributed::DataParallelEpoch e = trainer.run_epoch();
        if (!speaker) continue;
        if (o.json) {
            json_record(first, epoch_json_fields(o, *engine, m, e.report) + ", \"workers\": " +
                                   std::to_string(reducer.workers()) + ", \"worker_threads\": " +
                                   std::to_string(o.worker_threads) + ", \"straggler_ms\": " +
                                   json_number(o.straggler_ms) + ", \"per_worker\": " + per_worker_json(e));
        } else {
            print_epoch_row(o, m, e.report);
            print_workers(e);
        }
        std::fflush(stdout);
    }
    if (array.open) std::printf("\n]\n");
    array.open = false;
    if (speaker && !o.save_params.empty()) {
        if (const std::string error = save_params(o.save_params, engine->params()); !error.empty())
            throw core::InputError(error);
    }
    std::fflush(stdout);
    return kExitOk;
}

}  // namespace

int cmd_train_worker(const TrainOptions& o) {
    // Before anything starts the cpu-parallel pool: this worker's share of the machine's cores.
    if (o.worker_threads > 0) cpu::ThreadPool::limit_shared(o.worker_threads);
    std::unique_ptr<distributed::GradientReducer> reducer;
    try {
        reducer = distributed::start_mpi_worker();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpulab train: %s\n", e.what());
        return kExitFailure;
    }
    int exit_code = kExitOk;
    try {
        exit_code = train_as_worker(o, *reducer);
    } catch (const core::InputError& e) {
        std::fprintf(stderr, "gpulab train: %s\n", e.what());
        exit_code = kExitFailure;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gpulab train: training stopped on worker %d: %s\n", reducer->rank(), e.what());
        exit_code = kExitFailure;
    }
    if (exit_code != kExitOk) {
        std::fflush(stdout);
        std::fflush(stderr);
        distributed::abort_mpi_job(exit_code);
    }
    return kExitOk;
}

}  // namespace gpulab::app
