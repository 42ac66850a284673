// BackgroundExport: see background_export.h.
#include "background_export.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace gpulab::app {

namespace {
// Tests only (tests/gui_tests.cmake, gui.f12_export): hold the writer this many milliseconds before
// it writes, so a second export pressed a frame later surely finds the first still running; on a
// loaded machine the first could otherwise finish in between and the refusal go untested.
int test_hold_ms() {
    const char* v = std::getenv("GPULAB_TEST_EXPORT_HOLD_MS");
    return v != nullptr ? std::clamp(std::atoi(v), 0, 10000) : 0;
}
}  // namespace

BackgroundExport::~BackgroundExport() { wait(); }

bool BackgroundExport::start(std::vector<PendingFile> files, ExportResult planned) {
    if (running_) return false;
    done_.store(false, std::memory_order_relaxed);
    running_ = true;
    thread_ = std::thread([this, files = std::move(files), planned = std::move(planned)]() mutable {
        // Normal priority: the user is waiting for these files, and at nice 10 (where measurements
        // once ran) anything else busy on the machine (a compiler, another app) left the write
        // waiting for seconds. The window keeps drawing either way: on two cores each has one.
        if (const int hold = test_hold_ms(); hold > 0) std::this_thread::sleep_for(std::chrono::milliseconds(hold));
        result_ = write_pending_files(std::move(files), std::move(planned));
        done_.store(true, std::memory_order_release);
    });
    return true;
}

std::optional<ExportResult> BackgroundExport::take_result() {
    if (!running_ || !done_.load(std::memory_order_acquire)) return std::nullopt;
    return wait();
}

std::optional<ExportResult> BackgroundExport::wait() {
    if (!running_) return std::nullopt;
    thread_.join();
    running_ = false;
    return std::move(result_);
}

}  // namespace gpulab::app
