// The recorded GPU run each lesson draws beside this computer's live one (issue 39, part 2): loaded
// once per process from GPULAB_RECORDING (a recording folder, or "off" for none), else from the data
// folder's assets/recorded/<gpu>/ (the first, by name, whose provenance names a real GPU), and
// matched by each view to the settings it measured. A comparison file the student loads (File >
// Compare) takes the recording's place; a live GPU row stays first, the recording beside it.
// core/recording/gpu_recording.h reads the files; tests/test_gpu_recording.cpp and the
// recording.* CLI tests check the matching and the labels.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

#include "gpu_model/gpu_estimate.h"
#include "recording/gpu_recording.h"

namespace gpulab::app {

// The recording, or null when there is none (or it could not be read: recording_problem says why).
const core::GpuRecording* shipped_recording();
// "" or one sentence: why no recording is shown ("no recorded GPU run is installed", a broken file).
std::string recording_problem();

// The first recorded export of `workload` that `convert` (a core::*_comparison accessor) turns into
// an `Imported` for which `matches` holds, marked as recorded; null when the recording has none.
template <class Imported, class Convert, class Matches>
std::unique_ptr<Imported> recorded_match(std::string_view workload, Convert convert, Matches matches) {
    const core::GpuRecording* rec = shipped_recording();
    if (!rec) return nullptr;
    for (const core::CompareFile* f : rec->of_workload(workload)) {
        try {
            auto m = std::make_unique<Imported>(convert(*f));
            if (!matches(static_cast<const Imported&>(*m))) continue;
            core::mark_as_recorded(*m, *rec);
            return m;
        } catch (const std::exception&) {
            // A file the accessor refuses (a row it cannot read) is passed over, as a non-matching one.
        }
    }
    return nullptr;
}

// The GPU the estimates model (gpu_model/gpu_estimate.h): the recording's when it is an H100, else the
// H200 (the GPU this project records on).
const core::PublishedGpu& estimated_gpu();
// The simulated run's memory floor on that same GPU (core::bandwidth_model_line), so a panel never
// names two GPUs; "" when nothing was counted.
std::string estimated_gpu_floor_line(std::int64_t moved_bytes, std::int64_t unique_bytes);

// A view's recorded match, found again only when the settings it shows change (`key`: the settings
// written out), so a view can ask for it every frame.
template <class Imported>
class RecordedMatch {
public:
    template <class Find>
    const Imported* get(const std::string& key, Find find) {
        if (!searched_ || key != key_) {
            key_ = key;
            searched_ = true;
            value_ = find();
        }
        return value_.get();
    }

private:
    bool searched_ = false;
    std::string key_;
    std::unique_ptr<Imported> value_;
};

}  // namespace gpulab::app
