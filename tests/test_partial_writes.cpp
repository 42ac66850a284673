// A set of output files (an export) that fails part-way (issue 16, "failures injected"): the folder
// disappears between two files, or the disk fills up (a file-size limit stands in for it). The failed
// write is an error naming the file and the reason, what was written before stays, and the
// sentence the export shows (core::partial_write_message, used by app/views/export.cpp) says
// what is left. tests/hostile_cli_tests.cmake runs the same through `gpulab export`.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "file_size_limit.h"
#include "io/file_io.h"

using namespace gpulab::core;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
    const fs::path p = fs::temp_directory_path() / ("gpulab_partial_" + name);
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_SUITE("partial-writes") {
    TEST_CASE("an export folder that disappears between two files: an error - and the message says it is gone") {
        const fs::path dir = fresh_dir("gone");
        CHECK(write_output_file((dir / "lesson-samples.csv").string(), "a,b\n1,2\n").empty());
        fs::remove_all(dir);  // a USB stick pulled out, or the folder deleted from a file manager
        const std::string error = write_output_file((dir / "lesson-summary.csv").string(), "x\n");
        CHECK(error.find("cannot write " + (dir / "lesson-summary.csv").string() + ": No such file or directory") == 0);
        const std::string message = partial_write_message(error, dir.string(), 1);
        CHECK(message.find(error) == 0);
        CHECK(message.find("the folder " + dir.string() + " is gone, and the file written before went with it") !=
              std::string::npos);
    }

    TEST_CASE("a full disk in the middle of an export keeps the files written before and says which one failed") {
        const fs::path dir = fresh_dir("full");
        const std::string samples = "backend,sample,total_ns\ncpu-scalar,0,1234\n";
        CHECK(write_output_file((dir / "lesson-samples.csv").string(), samples).empty());
        // A file-size limit of 64 KiB refuses the bytes past it, as a full disk does (EFBIG, with
        // SIGXFSZ ignored as gpulab's main() does).
        const std::string big(256 * 1024, 'x');
        std::string error;
        {
            const FileSizeLimit full(64 * 1024);
            REQUIRE(full.ok());
            error = write_output_file((dir / "lesson-summary.csv").string(), big);
        }
        CHECK(error.find("lesson-summary.csv: File too large after 64.0 KiB of 256") != std::string::npos);
        CHECK_FALSE(fs::exists(dir / "lesson-summary.csv"));  // nothing cut under the name
        CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);  // nor a temporary
        const std::string message = partial_write_message(error, dir.string(), 1);
        CHECK(message.find("the file written before it is kept in " + dir.string()) != std::string::npos);
        CHECK(slurp(dir / "lesson-samples.csv") == samples);
        CHECK(partial_write_message(error, dir.string(), 3).find("the 3 files written before it are kept in") !=
              std::string::npos);
        CHECK(partial_write_message(error, dir.string(), 0).find("; nothing was written") != std::string::npos);
        fs::remove_all(dir);
    }
}
