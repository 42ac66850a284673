// Reading back another machine's exported measurement of any lesson, so a lab machine and a
// student's laptop can be shown side by side. Every lesson's export CSV has the same shape: "# "
// caption lines (gpulab version | lesson title | date, CPU, GPU or "no GPU: ...", library versions,
// what was measured) followed by one or more tables, each with its own header row and separated by
// blank lines. parse_compare_file keeps that as one model (machine, date, lesson, tables by column
// name); the per-lesson accessors below turn it into what each view draws. The lesson a file came
// from is told by its first table's header, not by its title, so an edited title still loads.
// Plain C++ with no GL, so the GUI, `gpulab export --compare` and the unit tests share it.
// Verified by tests/test_compare_import.cpp (a hand-written file per lesson and each kind of bad
// file) and tests/compare_tests.cmake (every lesson's real export read back).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::core {

// Who measured: what every comparison names beside "this machine".
struct ImportedMachine {
    std::string path;           // the file it came from
    std::string version;        // gpulab version that wrote it
    std::string lesson_title;   // as written in the caption
    std::string date;           // when it was measured, as written ("2026-11-22 11:39:27 UTC")
    std::string cpu;            // CPU model as written, without the thread count
    std::string gpu;            // GPU name, or "no GPU"
    std::string machine_label;  // "<cpu>, <gpu>": what the UI calls the other machine
    // Not empty for a GPU run shipped with gpulab (recording/gpu_recording.h): "recorded on NVIDIA
    // H200, 2026-11-28", the export CSVs' source column for its rows; the UI says it, followed by
    // "; not this computer", instead of "other machine: ...".
    std::string recorded_source;
    // With recorded_source "estimate (model, <GPU>)": figures a model computed (gpu_model/
    // gpu_estimate.h), not a measurement anywhere; the UI says so wherever it shows them.
    bool estimate = false;
};

// The "source" column of every export table (issue 39): a row this machine measured says this; a
// row shown beside it from a recording says "recorded on <GPU>, <date>", an estimate
// "estimate (model, <GPU>)". Reading an export back keeps only this machine's rows.
inline constexpr std::string_view kSourceMeasuredHere = "measured here";

// One table of an export: its header's column names and the rows under it, as text.
struct CompareTable {
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;  // each exactly columns.size() fields
    std::vector<int> line_numbers;               // 1-based line of each row, for messages

    // Index of a column, or -1.
    int column(std::string_view name) const;
    // The field of `row` under `name`; "" when the table has no such column.
    const std::string& cell(std::size_t row, std::string_view name) const;
};

// A whole export file, whichever lesson wrote it.
struct CompareFile : ImportedMachine {
    std::string workload;              // "activation", "latency", "simd-mimd" or "conv2d"
    std::vector<std::string> caption;  // the "# " lines without their "# "
    std::vector<CompareTable> tables;  // in file order; the first is the lesson's main table

    // The rest of the first caption line that starts with `prefix`; "" when none does.
    std::string caption_after(std::string_view prefix) const;
    // The first table whose first column is `first_column`, or null.
    const CompareTable* table(std::string_view first_column) const;
};

// Parses an export's text; `name` is used in messages. Throws InputError ("<name>: <problem>")
// when it is not a gpulab export, is a file a lesson writes but does not compare (the activation
// lesson's samples), or has no rows.
// At most this many rows in all its tables (else InputError).
inline constexpr std::int64_t kMaxCompareRows = 5000;
CompareFile parse_compare_file(std::string_view text, const std::string& name);
// Reads and parses a file; a missing or unreadable file is an InputError naming it as well.
CompareFile load_compare_file(const std::string& path);
// Throws InputError "<file> is an export of lesson '<title>'; open that lesson to compare with it"
// unless the file came from a lesson of kind `workload`.
void require_workload(const CompareFile& file, std::string_view workload);

// [SECTION] elementwise activations: <id>-summary.csv

struct ImportedBackend {
    std::string backend;
    bool ran = false;
    int samples = 0;
    int64_t median_ns = 0, min_ns = 0, max_ns = 0;
    double gbps = 0.0;
};

struct ImportedRun : ImportedMachine {
    std::string op;        // "ReLU"
    std::string elements;  // "2^20": the size text, compared as written with the live run's
    std::vector<ImportedBackend> backends;

    // The backend's row, or null when the other machine did not list it.
    const ImportedBackend* find(std::string_view backend) const;
};

ImportedRun activation_comparison(const CompareFile& file);
// parse/load + require_workload("activation") + activation_comparison, in one call.
ImportedRun parse_compare_summary(std::string_view text, const std::string& name);
ImportedRun load_compare_summary(const std::string& path);

// [SECTION] latency vs throughput: <id>-sweep.csv

struct ImportedSweepSeries {
    std::string backend;
    std::vector<int64_t> elements;   // ascending sizes where the backend ran
    std::vector<int64_t> median_ns;  // total (copies included for a GPU), one per size
    // The kernel alone (data resident on the GPU), one per size; 0 where the file has no such column.
    std::vector<int64_t> compute_ns;
};

struct ImportedSweep : ImportedMachine {
    std::string op;  // "ReLU", from the "Op: ReLU over ..." caption
    std::vector<ImportedSweepSeries> series;  // backends that ran at one size at least

    const ImportedSweepSeries* find(std::string_view backend) const;
};

ImportedSweep sweep_comparison(const CompareFile& file);

// [SECTION] SIMD vs MIMD: <id>-simd.csv

struct ImportedPattern {
    std::string pattern;  // "4-way"
    double theoretical = 0.0;
    bool measured = false;
    double measured_factor = 0.0;
};

struct ImportedSimd : ImportedMachine {
    bool simd_ok = false;
    std::string simd_error;
    std::string isa;  // "AVX-512"
    int lanes = 0;
    std::string activation;  // as written ("sigmoid")
    int64_t elements = 0;
    int64_t scalar_ns = 0, simd_ns = 0;
    double speedup = 0.0;
    bool mimd_ok = false;
    std::string mimd_error;
    int threads = 0;
    int64_t wall_ns = 0, sequential_ns = 0;
    std::vector<ImportedPattern> patterns;

    const ImportedPattern* find(std::string_view pattern) const;
};

ImportedSimd simd_comparison(const CompareFile& file);

// [SECTION] convolution: <id>-conv.csv

struct ImportedConvBackend {
    std::string backend;
    bool ran = false;
    int samples = 0;
    int64_t median_ns = 0, min_ns = 0, max_ns = 0;
    double gflops = 0.0;
    std::string note;  // implementation, or why it did not run
};

struct ImportedConv : ImportedMachine {
    std::string shape;  // "N=1 C=1 H=256 W=256 K=1 R=S=3 pad=zero stride=1 -> P=256 Q=256"
    std::vector<ImportedConvBackend> backends;

    const ImportedConvBackend* find(std::string_view backend) const;
};

ImportedConv conv_comparison(const CompareFile& file);

// [SECTION] training: <id>-train.csv (the race: every engine for the same seconds)

struct ImportedTrainLane {
    std::string engine;
    bool ran = false;
    std::int64_t images = 0;     // trained in the race, all epochs
    double seconds = 0.0;        // of training, test-set checks excluded
    double images_per_second = 0.0;
    double test_accuracy = 0.0;  // after its last epoch
    std::string note;            // why it stopped, or why it did not run
};

struct ImportedTrain : ImportedMachine {
    std::vector<ImportedTrainLane> race;  // in the file's order; empty when that export had no race

    const ImportedTrainLane* find(std::string_view engine) const;
};

ImportedTrain train_comparison(const CompareFile& file);

// [SECTION] tensor cores: <id>-tensor.csv (its speed table: one matrix product per backend and format)

struct ImportedSpeedRow {
    std::string backend;  // "gpu-cublas", "cuda-kernel", "cpu-parallel", ...
    std::string inputs;   // "FP32", "TF32", "FP16", "BF16", as written
    std::int64_t size = 0;
    bool ran = false;
    double gflops = 0.0, gflops_min = 0.0, gflops_max = 0.0;
    std::string path;     // what ran there, or why not
};

struct ImportedTensorSpeed : ImportedMachine {
    std::vector<ImportedSpeedRow> rows;  // the "speed" rows, in file order

    // The row of that backend and input format at that size, or null.
    const ImportedSpeedRow* find(std::string_view backend, std::string_view inputs, std::int64_t size) const;
};

// The speed table of a tensor-cores export; InputError when a number does not read. A file whose
// speed table is missing gives no rows.
ImportedTensorSpeed tensor_speed_comparison(const CompareFile& file);

// "<cpu>, <gpu or no GPU>" for the machine this process runs on, in the same words as an import's
// machine_label. `gpu_name` empty means no usable GPU.
std::string machine_label(const std::string& cpu_model, const std::string& gpu_name);

}  // namespace gpulab::core
