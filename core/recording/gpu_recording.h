// A GPU run recorded on another computer and shipped with gpulab (issue 39, part 2), so a student
// without an NVIDIA GPU still sees what one does with each lesson's work: the exports `gpulab export
// --all-steps` wrote on that GPU (one CSV per step, the lessons' own tables) and a provenance file
// naming the GPU, its driver and libraries, the gpulab commit, the date and the command. The views
// draw a matching recorded measurement beside this computer's live one, as they draw a comparison
// with another machine, but labelled "recorded on <GPU>, <date>; not this computer".
//
// Folder layout (flat, as `make gpu-record` writes it): provenance.txt and *.csv. A recording can
// also come from an instructor, so it is read as untrusted data: every file opened through the
// folder without following a link, at most kMaxRecordingFiles files and kMaxRecordingBytes in all,
// each CSV through the comparison reader (compare/compare_import.h), a file that does not parse
// passed over with its reason. Plain C++ (no GL); verified by tests/test_gpu_recording.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare_import.h"
#include "gpu_model/gpu_estimate.h"

namespace gpulab::core {

inline constexpr int kMaxRecordingFiles = 600;
inline constexpr std::int64_t kMaxRecordingBytes = std::int64_t{20} << 20;  // the shipped budget

// provenance.txt: "key: value" lines ("#" starts a comment). gpu and date are required.
struct RecordingProvenance {
    std::string gpu;         // "NVIDIA H200" as nvidia-smi names it
    std::string gpu_memory;  // "143771 MiB"
    std::string driver, cuda, cudnn, cublas;
    std::string commit;      // gpulab's commit the recording was built from
    std::string date;        // UTC, "2026-11-28 20:41:07 UTC"
    std::string command;     // what ran
    // "" for a real GPU. Anything else (e.g. "test fixture") marks a recording that is not a GPU's:
    // its label says so and it is never shipped (the tests' recordings).
    std::string not_a_gpu;
};

// Parses provenance.txt; throws InputError "<name>: <problem>" when a required key is missing, a
// line is not "key: value", or a value holds control characters.
RecordingProvenance parse_provenance(std::string_view text, const std::string& name);

struct GpuRecording {
    std::filesystem::path folder;
    RecordingProvenance provenance;
    std::vector<CompareFile> files;    // every CSV that parsed, in file-name order
    std::vector<std::string> skipped;  // "<file>: <why>", for the Devices view and the tests

    // "recorded on NVIDIA H200, 2026-11-28" (the date without its time): the source column of its
    // rows in an export; a recording that is not a GPU's says so first ("test fixture, not a GPU:
    // recorded on ...").
    std::string source() const;
    // The CSVs a lesson of `workload` wrote ("activation", "conv2d", "latency", ...).
    std::vector<const CompareFile*> of_workload(std::string_view workload) const;
};

// Reads a recording folder; throws InputError when the folder cannot be read, has no readable
// provenance.txt, or exceeds the limits above. Files that are not plain, not CSV, or do not parse
// are listed in `skipped`, never fatal.
GpuRecording load_recording(const std::filesystem::path& folder);

// True for a backend whose rows a recording brings beside this computer's: a GPU one, i.e. not a
// CPU backend ("cpu-...") and not the simulator ("cuda-sim", whose time is no GPU speed).
bool recorded_gpu_backend(std::string_view backend);

// Marks `machine` as the recording's: recorded_source from source(), the date from the provenance.
void mark_as_recorded(ImportedMachine& machine, const GpuRecording& recording);
// Marks `machine` as figures the model computed for `gpu` (gpu_model/gpu_estimate.h): its source
// "estimate (model, <GPU>)", the GPU's name as its machine, this gpulab's version.
void mark_as_estimate(ImportedMachine& machine, const PublishedGpu& gpu);

}  // namespace gpulab::core
