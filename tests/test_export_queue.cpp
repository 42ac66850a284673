// The window's export written in the background (app/views/pending_files.h,
// app/shell/background_export.h): inside a DeferredExportWrites scope nothing is written, the queue
// is written in order, a full disk part-way gives the same message as a direct write with the
// files before it kept, a second export is refused while one is written, and destroying the writer
// mid-export finishes the files. No GL, so it runs here and under ThreadSanitizer.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "file_size_limit.h"
#include "shell/background_export.h"
#include "views/pending_files.h"

using namespace gpulab::app;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / ("gpulab_export_queue_" + name);
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

// A grey-blue 1920x1080 frame, as large as the window's.
Pixels frame() {
    auto rgba = std::make_shared<std::vector<uint8_t>>(static_cast<std::size_t>(1920) * 1080 * 4);
    for (std::size_t i = 0; i < rgba->size(); ++i) (*rgba)[i] = static_cast<uint8_t>(i % 4 == 3 ? 255 : (i / 7) % 251);
    return rgba;
}

std::vector<PendingFile> three_files(const fs::path& dir) {
    return {{(dir / "lesson-samples.csv").string(), "a,b\n1,2\n", nullptr, 0, 0},
            {(dir / "lesson-window.png").string(), {}, frame(), 1920, 1080},
            {(dir / "lesson-summary.csv").string(), "x\n", nullptr, 0, 0}};
}

bool is_png(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    char sig[8] = {};
    in.read(sig, 8);
    return in && std::string(sig + 1, 3) == "PNG";
}

}  // namespace

TEST_SUITE("export-queue") {
    TEST_CASE("export files queued in a DeferredExportWrites scope are only written by write_pending_files") {
        CHECK(DeferredExportWrites::current() == nullptr);
        const fs::path dir = fresh_dir("written");
        std::vector<PendingFile> files;
        {
            DeferredExportWrites queue;
            CHECK(DeferredExportWrites::current() == &queue);
            for (PendingFile& f : three_files(dir)) queue.add(std::move(f));
            files = queue.take();
        }
        CHECK(DeferredExportWrites::current() == nullptr);
        REQUIRE(files.size() == 3);
        CHECK(fs::is_empty(dir));
        const ExportResult planned{true, "exported 3 files to " + dir.string(), {"a", "b", "c"}};
        const ExportResult r = write_pending_files(std::move(files), planned);
        CHECK(r.ok);
        CHECK(r.message == planned.message);
        CHECK(is_png(dir / "lesson-window.png"));
        CHECK(fs::file_size(dir / "lesson-samples.csv") == 8);
        CHECK(fs::file_size(dir / "lesson-summary.csv") == 2);
        fs::remove_all(dir);
    }

    TEST_CASE("a full disk part-way through a background export keeps the files before it and says which failed") {
        const fs::path dir = fresh_dir("full");
        // A file-size limit of 4 KiB takes the 8-byte CSV and refuses the PNG's bytes past it, as a
        // full disk would (SIGXFSZ ignored, as gpulab's main() does).
        ExportResult r;
        {
            const FileSizeLimit full(4096);
            REQUIRE(full.ok());
            r = write_pending_files(three_files(dir), {true, "exported 3 files", {}});
        }
        CHECK_FALSE(r.ok);
        CHECK(r.message.find("lesson-window.png: File too large") != std::string::npos);
        CHECK_FALSE(fs::exists(dir / "lesson-window.png"));  // no cut picture under its name
        CHECK(r.message.find("the file written before it is kept in " + dir.string()) != std::string::npos);
        REQUIRE(r.files.size() == 1);
        CHECK(r.files[0] == (dir / "lesson-samples.csv").string());
        CHECK_FALSE(fs::exists(dir / "lesson-summary.csv"));  // stops at the first failure
        fs::remove_all(dir);
    }

    TEST_CASE("BackgroundExport refuses a second export while one is written and hands the result over once") {
        const fs::path dir = fresh_dir("background");
        BackgroundExport writer;
        CHECK_FALSE(writer.busy());
        CHECK_FALSE(writer.take_result());
        REQUIRE(writer.start(three_files(dir), {true, "exported 3 files", {}}));
        CHECK(writer.busy());
        CHECK_FALSE(writer.start(three_files(dir), {true, "second", {}}));
        std::optional<ExportResult> r;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (!(r = writer.take_result()) && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        REQUIRE(r);
        CHECK(r->ok);
        CHECK(r->message == "exported 3 files");
        CHECK_FALSE(writer.busy());
        CHECK_FALSE(writer.take_result());
        CHECK(is_png(dir / "lesson-window.png"));
        fs::remove_all(dir);
    }

    TEST_CASE("closing the window mid-export finishes the files being written before the writer goes") {
        const fs::path dir = fresh_dir("shutdown");
        {
            BackgroundExport writer;
            REQUIRE(writer.start(three_files(dir), {true, "exported 3 files", {}}));
        }  // destroyed at once, as at shutdown
        CHECK(is_png(dir / "lesson-window.png"));
        CHECK(fs::file_size(dir / "lesson-summary.csv") == 2);
        fs::remove_all(dir);
    }
}
