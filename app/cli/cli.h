// The command line: one binary, subcommands for the GUI, lessons, info, export, bench and apply.
// Bad arguments give a one-line message and exit code 2 (tests/cli_tests.cmake).
#pragma once

#include <string>
#include <vector>

namespace gpulab::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

int cmd_lessons(const std::vector<std::string>& check_files, const std::vector<std::string>& lesson_dirs);
int cmd_info();

struct BenchOptions {
    bool json = false;
    bool quick = false;                 // one small size, few samples: for tests
    std::vector<std::string> ops;       // empty: every activation
    std::vector<std::string> backends;  // empty: every available backend
    std::vector<long long> sizes;       // empty: 2^20 and 2^26 (quick: 2^16)
    std::vector<long long> gemm_sizes;  // the tensor suite's n (n x n x n); empty: 256, 512, 1024 and FP32 at 2048 (quick: 128)
    bool gemm_large = false;            // the tensor suite adds its FP32 rows at 4096^3 (seconds a sample on 2 cores)
    bool gemm_fp32_only = false;        // the tensor suite times only ours and oneDNN's FP32 (scripts/gemm-vs-openblas.py)
    std::string suite = "all";          // "activation", "latency" or "all"
};
int cmd_bench(const BenchOptions& options);
// A bench progress line on stderr, printf-style. Flushes stdout first, so that when both go to one
// pipe or file the progress lines and the tables stay in the order they were written.
void bench_progress(const char* format, ...) __attribute__((format(printf, 1, 2)));

struct ApplyOptions {
    std::string op;
    std::string input, output;
    std::string backend = "cpu-parallel";
    double alpha = 0.01;
    // conv2d (cli_apply_conv.cpp)
    std::string filter;       // a named filter, or empty with kernel_path
    std::string kernel_path;  // custom filter .npy: (R, S) or (K, C, R, S)
    long long filter_size = 3;  // box / gaussian size
    std::string pad = "zero";
    long long stride = 1;
    bool per_channel = false;  // each input plane filtered on its own (a picture: R, G, B)
    // matmul (cli_apply_matmul.cpp)
    std::string a_path, b_path;     // A (m x k) and B (k x n), 2-D .npy
    std::string precision = "fp32";   // what A and B are rounded to
    std::string accumulate = "fp32";  // what the running sum is kept in
    bool backend_given = false;       // --backend on the command line (matmul's default is cpu-scalar)
};
int cmd_apply(const ApplyOptions& options);

// `gpulab train` (cli_train.cpp): the training lesson's run, headless.
struct TrainOptions {
    std::string backend = "cpu-parallel";
    int epochs = 1;
    long long batch = 64;
    unsigned long long seed = 1;
    long long limit = 0;  // > 0: only the first N training and test images
    std::string data;     // empty: Debian's Fashion-MNIST
    std::string model;    // empty: the article's CNN
    double learning_rate = 0.05;
    double momentum = 0.9;
    bool json = false;
    bool layers = false;  // print each layer's forward and backward time per epoch
    // fp32 | tf32 | bf16-mixed | bf16-pure | fp16-mixed (train::parse_compute_precision; checked by the parser).
    std::string precision = "fp32";
    // fp16-mixed only: 0 scales dynamically, a power of two keeps that loss scale (train::check_loss_scale).
    double loss_scale = 0.0;
    std::string save_params;  // the trained parameters as raw float32, for comparing runs (hidden)
    // Data-parallel training over MPI (cli_train_launch.cpp): > 0 starts that many worker processes
    // through mpirun, each training on its slice of every batch; 0 trains in this process.
    int workers = 0;
    std::string hostfile;      // handed to mpirun: which machines, how many workers on each
    double straggler_ms = 0;   // the last worker sleeps this long every step, to see the others wait
    // Set by the launcher on the command line it gives mpirun (hidden): this process is one worker.
    bool rank_worker = false;
    int worker_threads = 0;    // the worker's cpu-parallel threads (0: all cores)
};
int cmd_train(const TrainOptions& options);
// The two halves of `gpulab train --workers N`: the process the user started, which checks the
// options and runs mpirun (cli_train_launch.cpp), and each worker mpirun starts (cli_train_worker.cpp).
int cmd_train_launch(const TrainOptions& options);
int cmd_train_worker(const TrainOptions& options);

// `gpulab puzzle` (cli_puzzle.cpp): the kernel puzzles.
int cmd_puzzle_list(const std::string& puzzle_dir, bool json);
struct PuzzleCheckOptions {
    std::string id;
    std::vector<std::string> files;  // .cu files or folders of them
    std::string puzzle_dir;          // empty: the built-in puzzles
    bool json = false;
    int jobs = 0;                    // 0: one per core
    int time_limit_s = 5;
    bool gpu = false;                // also run the passing ones on this machine's GPU (nvcc)
};
int cmd_puzzle_check(const PuzzleCheckOptions& options);
// `gpulab puzzle grade DIR` (cli_puzzle_grade.cpp): a class's folder of submissions.
struct PuzzleGradeOptions {
    std::string folder;       // one .cu per student, or one folder per student
    std::string id;           // --puzzle: every submission is this puzzle
    std::string out;          // --out: results as .json or .csv
    bool gradescope = false;  // --out is Gradescope's results.json (one submission)
    std::string puzzle_dir;   // empty: the built-in puzzles
    int jobs = 0;             // 0: one per core
    int time_limit_s = 5;
};
int cmd_puzzle_grade(const PuzzleGradeOptions& options);
// `gpulab lessons --check DIR/puzzle.toml` (or the folder): parses it, then runs its solution,
// skeleton and wrong solutions (puzzles::validate_puzzle). Returns the number of problems printed.
int check_puzzle_folder(const std::string& path);
// `gpulab puzzle record [ID...]`: each reference's run on its example, into its folder's
// reference-run.txt (puzzles/reference_record.h), for machines without a compiler.
int cmd_puzzle_record(const std::string& puzzle_dir, const std::vector<std::string>& ids);
int cmd_apply_conv(const ApplyOptions& options);
int cmd_apply_matmul(const ApplyOptions& options);

}  // namespace gpulab::app
