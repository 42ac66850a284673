// The export's files as data: see pending_files.h. Verified by tests/test_export_queue.cpp.
#include "pending_files.h"

#include <stb/stb_image_write.h>

#include <filesystem>

#include "io/file_io.h"

namespace gpulab::app {

bool write_png(const std::string& path, const std::vector<uint8_t>& rgba, int width, int height, std::string& error) {
    if (width <= 0 || height <= 0 || rgba.size() < static_cast<std::size_t>(width) * height * 4) {
        error = "no pixels to write for " + path;
        return false;
    }
    // Encoded in memory and written by write_output_file: stbi_write_png ignores fwrite's and
    // fclose's results, so a full disk left a truncated PNG reported as written.
    std::string png;
    const auto append = [](void* to, void* data, int size) {
        static_cast<std::string*>(to)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
    };
    if (!stbi_write_png_to_func(append, &png, width, height, 4, rgba.data(), width * 4)) {
        error = "cannot encode " + path + " as PNG";
        return false;
    }
    error = core::write_output_file(path, png);
    return error.empty();
}

// [SECTION] writing in the background

namespace {

// The export being queued on this thread, if any: the UI thread's, while Shell::start_export runs.
thread_local DeferredExportWrites* t_deferred = nullptr;

}  // namespace

DeferredExportWrites::DeferredExportWrites() : previous_(t_deferred) { t_deferred = this; }

DeferredExportWrites* DeferredExportWrites::current() { return t_deferred; }

DeferredExportWrites::~DeferredExportWrites() { t_deferred = previous_; }

ExportResult write_pending_files(std::vector<PendingFile> files, ExportResult planned) {
    std::vector<std::string> written;
    for (PendingFile& f : files) {
        std::string error;
        const bool ok = f.rgba ? write_png(f.path, *f.rgba, f.width, f.height, error)
                               : (error = core::write_output_file(f.path, f.text)).empty();
        if (!ok) {
            // The folder is the file's: ExportWriter names every file <dir>/<lesson>-<suffix>.
            ExportResult failed;
            failed.message = core::partial_write_message(
                error, std::filesystem::path(f.path).parent_path().string(), written.size());
            failed.files = std::move(written);
            return failed;
        }
        written.push_back(f.path);
        f.rgba.reset();  // the pixels go as soon as they are on disk
        f.text.clear();
    }
    return planned;
}

}  // namespace gpulab::app
