// An export's files as data: what each one holds (text, or pixels to encode as PNG), a scope that
// queues them instead of writing them, and the function that writes a queue. Encoding a 1920x1080
// PNG takes ~200 ms and an export has several, so the window queues its export (export.h's
// functions write through here) and writes it on a background thread (shell/background_export.h):
// GL work (rendering panels, reading pixels back) stays on the UI thread. No GL and no ImGui, so
// tests/test_export_queue.cpp checks it, a full disk included, in the doctest binary.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gpulab::app {

// A picture's pixels, RGBA, top row first. Shared rather than copied: the window's frame read back
// on the UI thread is handed to the thread that encodes it without another 8 MB copy.
using Pixels = std::shared_ptr<const std::vector<uint8_t>>;

struct ExportResult {
    bool ok = false;
    std::string message;             // one line for the UI / terminal
    std::vector<std::string> files;  // written paths
};

// stb_image_write with a readable error. Always writes at once (screenshots, the CLI).
bool write_png(const std::string& path, const std::vector<uint8_t>& rgba, int width, int height, std::string& error);

// One file an export will write: `text`, or `rgba` to encode as PNG.
struct PendingFile {
    std::string path;
    std::string text;
    Pixels rgba;  // null: a text file
    int width = 0, height = 0;
};

// While one is alive on a thread, the export code on that thread (ExportWriter, render_panel_png)
// queues its files here and counts them as written, instead of writing them. A scope rather than a
// parameter: every lesson view's export_files writes through the same few functions, and the
// command line's export, which has no such scope, keeps writing at once.
class DeferredExportWrites {
public:
    DeferredExportWrites();
    ~DeferredExportWrites();
    DeferredExportWrites(const DeferredExportWrites&) = delete;
    DeferredExportWrites& operator=(const DeferredExportWrites&) = delete;
    // The innermost one alive on the calling thread; null when files are written at once.
    static DeferredExportWrites* current();
    void add(PendingFile file) { files_.push_back(std::move(file)); }
    std::vector<PendingFile> take() { return std::move(files_); }

private:
    std::vector<PendingFile> files_;
    DeferredExportWrites* previous_;
};

// Writes `files` in order and stops at the first failure. `planned` is what the export said when it
// queued them (every file counted as written): returned as it is when all were written, otherwise
// ok=false with the same message a direct write gives (which file failed, what is kept) and the
// files written before it. Any thread; never throws.
ExportResult write_pending_files(std::vector<PendingFile> files, ExportResult planned);

}  // namespace gpulab::app
