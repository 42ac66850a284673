// The parts of `gpulab train` a single-process run (cli_train.cpp) and each worker of a
// data-parallel run (cli_train_worker.cpp) both do before training: the engine with its precision
// checked, the training settings from the options, and --save-params at the end.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli.h"
#include "train/engine.h"
#include "train/trainer.h"

namespace gpulab::app {

// The engine the options name, its precision and loss scale set. On a problem prints one
// sentence on stderr, sets `exit_code` (kExitUsage or kExitFailure) and returns nullptr.
std::unique_ptr<train::TrainEngine> prepare_train_engine(const TrainOptions& o, int& exit_code);

train::TrainConfig train_config(const TrainOptions& o);

// --save-params: the trained parameters as raw float32 in this machine's byte order, in the engine's
// layout, for comparing two runs (tests/mpi_train_check.py). "" or the sentence of the failure.
std::string save_params(const std::string& path, const std::vector<float>& params);

}  // namespace gpulab::app
