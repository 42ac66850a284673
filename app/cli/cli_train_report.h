// What `gpulab train` prints, shared by the single-process run (cli_train.cpp) and rank 0 of a
// data-parallel run (cli_train_worker.cpp), so both read the same: the header, the epoch table or
// its JSON records, and where the time went per layer.
#pragma once

#include <string>

#include "cli.h"
#include "train/dataset.h"
#include "train/engine.h"
#include "train/model.h"
#include "train/trainer.h"

namespace gpulab::app {

// "0.52 0.61 0.70" from /proc/loadavg, or "" where there is none.
std::string load_average();

// The lines before the table: data, model, SGD, engine, precision and notes.
void print_train_header(const TrainOptions& o, train::TrainEngine& engine, const train::Dataset& data,
                        const train::ModelDesc& m);
// The table's column names.
void print_epoch_columns();

// One epoch as a table row (and, with --layers, each layer's share).
void print_epoch_row(const TrainOptions& o, const train::ModelDesc& m, const train::EpochReport& r);

// One epoch as the fields of a JSON record (without braces), for json_record; a data-parallel run
// appends its own fields.
std::string epoch_json_fields(const TrainOptions& o, train::TrainEngine& engine, const train::ModelDesc& m,
                              const train::EpochReport& r);

}  // namespace gpulab::app
