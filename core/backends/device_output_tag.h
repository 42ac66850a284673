// Which GPU output buffer a picture on screen may still read. All lesson views share the backend
// objects, and a backend's device_output() holds whatever ITS last run wrote: another lesson's run,
// a latency sweep or a later run of the same view overwrites or reallocates it, and while a job is
// running the worker may be writing or freeing it. So each backend counts its runs
// (Backend::output_generation(), bumped before a run touches the buffer), a view remembers the
// counts when its run's result arrives, and it reads a device buffer only while
//   - no job is running, and
//   - that backend's count is still the one remembered (no run of anyone's since).
// Otherwise the view shows its own host copy of the result.
//
// Verified by tests/test_device_output_tag.cpp: a foreign run, a job in flight, a result that
// arrives while another job already runs, and backends without device output (count 0) all refuse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpulab::core {

class DeviceOutputTag {
public:
    // When a run's result arrives (main thread): the backends' output_generation() values, in the
    // order of the run's reports. Nothing is remembered if a job is already running again, since a
    // backend may be writing a newer output.
    void remember(std::vector<uint64_t> generations, bool job_busy) {
        generations_.clear();
        if (!job_busy) generations_ = std::move(generations);
    }
    void forget() { generations_.clear(); }

    // True when backend `index`'s device output is still the remembered run's: no job running,
    // a generation was remembered (0 means the backend has no device output) and it is unchanged.
    bool current(std::size_t index, uint64_t generation_now, bool job_busy) const {
        if (job_busy || index >= generations_.size()) return false;
        return generations_[index] != 0 && generations_[index] == generation_now;
    }

private:
    std::vector<uint64_t> generations_;
};

}  // namespace gpulab::core
