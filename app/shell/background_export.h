// One export's files written on a thread of their own, so the window keeps drawing while the PNGs
// are encoded (~200 ms each at 1920x1080) and written. The lesson view renders its panels and the
// window's frame is read back on the UI thread first (GL lives there); this class only encodes and
// writes what was queued (views/export.h, DeferredExportWrites). Not the JobRunner: an export must
// not wait behind a measurement that may run for a minute. One export at a time; the shell refuses
// a second F12 until this one is done. Checked by the GUI test gui.f12_export (tests/gui_tests.cmake).
#pragma once

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "views/pending_files.h"

namespace gpulab::app {

class BackgroundExport {
public:
    BackgroundExport() = default;
    // Waits for the files being written: closing the window never leaves a PNG cut short.
    ~BackgroundExport();
    BackgroundExport(const BackgroundExport&) = delete;
    BackgroundExport& operator=(const BackgroundExport&) = delete;

    // True from start() until take_result() has handed the result over.
    bool busy() const { return running_; }
    // Starts writing `files` (what write_pending_files does, on the thread). False, with nothing
    // started, while the last export is still being written.
    bool start(std::vector<PendingFile> files, ExportResult planned);
    // The finished export's result, once; nullopt while writing or when nothing was started.
    std::optional<ExportResult> take_result();
    // Blocks until the files are written and returns the result (nullopt when nothing was started).
    std::optional<ExportResult> wait();

private:
    std::thread thread_;
    std::atomic<bool> done_{false};
    ExportResult result_;  // written by the thread before it sets done_
    bool running_ = false;
};

}  // namespace gpulab::app
