// `gpulab train`: the training lesson's experiment without a window. Loads the data set (Debian's
// Fashion-MNIST unless --data), builds the model, trains it on one backend for --epochs and prints
// per epoch the mean loss, train accuracy (while the weights moved, as Keras prints it), test
// accuracy, images per second and time; --json prints the same as records. The machine's load
// average is printed beside the speed, since the CPU may be shared. --precision (and, for fp16-mixed,
// --loss-scale) sets the engine's
// arithmetic before its setup (an engine that cannot do it refuses with its sentence, exit 2), and
// the header and every JSON record name what the engine says it runs (precision()). Bad input is
// one sentence: tests/cli_tests.cmake and tests/train_cli_tests.cmake (train_*) check the messages.
// --workers N trains data-parallel over MPI instead: cli_train_launch.cpp starts the workers,
// cli_train_worker.cpp is each of them.
#include "cli.h"

#include <cstdio>
#include <string>

#include "cli_train_report.h"
#include "cli_train_setup.h"
#include "io/image_io.h"
#include "json_out.h"
#include "train/compute_precision.h"
#include "train/dataset.h"
#include "train/engine.h"
#include "train/trainer.h"

namespace gpulab::app {

int cmd_train(const TrainOptions& o) {
    if (o.rank_worker) return cmd_train_worker(o);
    if (o.workers > 0) return cmd_train_launch(o);
    int exit_code = kExitOk;
    std::unique_ptr<train::TrainEngine> engine = prepare_train_engine(o, exit_code);
    if (!engine) return exit_code;
    const std::string folder = o.data.empty() ? train::kFashionMnistDir : o.data;
    bool array_open = false;  // --json: "[" printed, so an error still closes the array
    try {
        const train::Dataset data = train::load_dataset(folder, o.limit);
        train::Trainer trainer(*engine, data, train_config(o));
        const train::ModelDesc& m = trainer.model();
        if (!o.json) {
            print_train_header(o, *engine, data, m);
            print_epoch_columns();
            std::fflush(stdout);
        } else {
            std::printf("[");
            array_open = true;
        }
        bool first = true;
        for (int epoch = 1; epoch <= o.epochs; ++epoch) {
            const train::EpochReport r = trainer.run_epoch();
            if (o.json) json_record(first, epoch_json_fields(o, *engine, m, r));
            else print_epoch_row(o, m, r);
            std::fflush(stdout);
        }
        if (o.json) std::printf("\n]\n");
        array_open = false;
        // FP16 mixed's loss scale moves while it trains: where it ended, and how many updates it skipped.
        if (!o.json && train::parse_compute_precision(o.precision) == train::ComputePrecision::Fp16Mixed)
            std::printf("after training: %s\n", engine->precision().c_str());
        if (!o.save_params.empty()) {
            if (const std::string error = save_params(o.save_params, engine->params()); !error.empty()) {
                std::fprintf(stderr, "gpulab train: %s\n", error.c_str());
                return kExitFailure;
            }
        }
    } catch (const core::InputError& e) {
        if (array_open) std::printf("\n]\n");
        std::fprintf(stderr, "gpulab train: %s\n", e.what());
        return kExitFailure;
    } catch (const std::exception& e) {
        if (array_open) std::printf("\n]\n");
        std::fprintf(stderr, "gpulab train: training stopped: %s\n", e.what());
        return kExitFailure;
    }
    return kExitOk;
}

}  // namespace gpulab::app
