// Reading back another machine's measurement of the elementwise-activations lesson, so a lab
// machine and a student's laptop can be shown side by side. The input is the lesson's exported
// <id>-summary.csv: "# " caption lines (gpulab version | lesson | date, CPU, GPU or "no GPU: ...",
// library versions, "Op: <op> on <n> elements ...") followed by one row per backend. Plain C++ with
// no GL, so the GUI, `gpulab export --compare` and the unit tests share it. Verified by
// tests/test_compare_import.cpp (a good file and each kind of bad file) and tests/compare_tests.cmake.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::core {

// One backend row of the other machine's summary.
struct ImportedBackend {
    std::string backend;
    bool ran = false;
    int samples = 0;
    int64_t median_ns = 0, min_ns = 0, max_ns = 0;
    double gbps = 0.0;
};

struct ImportedRun {
    std::string path;           // the file it came from
    std::string version;        // gpulab version that wrote it
    std::string date;           // when it was measured, as written ("2026-11-22 11:39:27 UTC")
    std::string cpu;            // CPU model as written, without the thread count
    std::string gpu;            // GPU name, or "no GPU"
    std::string machine_label;  // "<cpu>, <gpu>": what the UI calls the other machine
    std::string op;             // "ReLU"
    std::string elements;       // "2^20": the size text, compared as written with the live run's
    std::vector<ImportedBackend> backends;

    // The backend's row, or null when the other machine did not list it.
    const ImportedBackend* find(std::string_view backend) const;
};

// Parses the text of a summary; `name` is used in messages. Throws InputError ("<name>: <problem>")
// when it is not a gpulab summary, is another lesson's export, or has no backend rows.
ImportedRun parse_compare_summary(std::string_view text, const std::string& name);
// Reads and parses a file; a missing or unreadable file is an InputError naming it as well.
ImportedRun load_compare_summary(const std::string& path);

// "<cpu>, <gpu or no GPU>" for the machine this process runs on, in the same words as an import's
// machine_label. `gpu_name` empty means no usable GPU.
std::string machine_label(const std::string& cpu_model, const std::string& gpu_name);

}  // namespace gpulab::core
