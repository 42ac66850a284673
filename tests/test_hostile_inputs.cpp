// The hostile inputs of issue 16, fed to the readers that take files from outside: a lesson file
// whose table header has 50,000 dotted parts (it overflowed toml++'s stack), FIFOs (they hung),
// symlinks to /dev/zero (they grew without end), folders and over-size files. Each must give a
// sentence naming the file, never a crash, a hang or a huge allocation. The .npy cases are in
// test_npy.cpp; tests/cli_tests.cmake drives the same files through the gpulab binary.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "compare/compare_import.h"
#include "io/image_io.h"
#include "io/file_io.h"
#include "lesson/lesson.h"

using namespace gpulab::core;
namespace fs = std::filesystem;

namespace {

// A fresh folder per test case, removed at the end.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("gpulab_hostile_" + name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string operator/(const std::string& file) const { return (path / file).string(); }
};

void write_text(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::string error_of_input(const std::string& path, std::int64_t cap) {
    try {
        read_input_file(path, cap, "test file");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

std::string all(const std::vector<LessonError>& errors) {
    std::string s;
    for (const auto& e : errors) s += e.to_string() + "\n";
    return s;
}

const char* kGoodLesson = "id = \"good\"\ntitle = \"Good\"\nworkload = \"activation\"\n[[steps]]\ntitle = \"s\"\n"
                          "body = \"\"\"\nA separator of dots inside text never counts:\n"
                          "[a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a."
                          "a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a]\n\"\"\"\n";

}  // namespace

TEST_SUITE("hostile-inputs") {
    TEST_CASE("input files: regular files only - size capped - read in full") {
        TempDir dir("input");
        write_text(dir / "ok.txt", "twelve bytes");
        CHECK(read_input_file(dir / "ok.txt", 100, "test file") == "twelve bytes");
        CHECK(error_of_input(dir / "ok.txt", 4).find("larger than any test file gpulab reads") != std::string::npos);
        REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);
        CHECK(error_of_input(dir / "fifo", 100).find("fifo: is a FIFO (named pipe), not a regular file") !=
              std::string::npos);
        fs::create_symlink("/dev/zero", dir / "zero");
        CHECK(error_of_input(dir / "zero", 100).find("zero: is a device, not a regular file") != std::string::npos);
        CHECK(error_of_input(dir.path.string(), 100).find("is a folder, not a file") != std::string::npos);
        CHECK(error_of_input(dir / "missing", 100).find("missing: cannot open file (No such file") != std::string::npos);
        CHECK(special_file_reason(dir / "fifo") != "");
        CHECK(special_file_reason(dir / "ok.txt") == "");
    }

    TEST_CASE("a table header of 50 000 dotted parts is refused with its line - not a stack overflow") {
        std::string deep = "id = \"deep\"\ntitle = \"x\"\n[a";
        for (int i = 0; i < 50000; ++i) deep += ".a";
        deep += "]\n";
        LessonLoad load = parse_lesson_text(deep, "deep.toml");
        CHECK_FALSE(load.lesson);
        REQUIRE(load.errors.size() == 1);
        CHECK(load.errors[0].to_string() ==
              "deep.toml:3: a key or table header of 50001 dotted parts (lesson files use a few; more than 64 is "
              "refused): not a lesson file");
        // The same as a dotted key and as an array-of-tables header.
        std::string key = "x";
        for (int i = 0; i < 50000; ++i) key += ".b";
        CHECK(parse_lesson_text("\n" + key + " = 1\n", "k.toml").errors.at(0).line == 2);
        CHECK(parse_lesson_text("[[" + key + "]]\n", "k.toml").errors.at(0).line == 1);
        // 64 parts still reach toml++ (and fail there as an unknown key, with a line).
        std::string ok_depth = "[a";
        for (int i = 1; i < 64; ++i) ok_depth += ".a";
        LessonLoad shallow = parse_lesson_text(ok_depth + "]\n", "ok.toml");
        CHECK(all(shallow.errors).find("dotted parts") == std::string::npos);
    }

    TEST_CASE("dots in strings - comments and numbers are not key parts") {
        LessonLoad load = parse_lesson_text(kGoodLesson, "good.toml");
        INFO(all(load.errors));
        CHECK(load.lesson);
    }

    TEST_CASE("a lesson folder with a FIFO - a /dev/zero symlink and a folder named *.toml still loads") {
        TempDir dir("lessons");
        write_text(dir / "good.toml", kGoodLesson);
        REQUIRE(::mkfifo((dir / "fifo.toml").c_str(), 0600) == 0);
        fs::create_symlink("/dev/zero", dir / "zero.toml");
        fs::create_directory(dir / "folder.toml");
        std::string deep = "[a";
        for (int i = 0; i < 50000; ++i) deep += ".a";
        write_text(dir / "deep.toml", deep + "]\n");
        const LessonCatalog cat = load_lessons({dir.path.string()});
        INFO(all(cat.errors));
        CHECK(cat.find("good") != nullptr);
        REQUIRE(cat.errors.size() == 4);
        const std::string errors = all(cat.errors);
        CHECK(errors.find("fifo.toml: is a FIFO (named pipe), not a regular file") != std::string::npos);
        CHECK(errors.find("zero.toml: is a device, not a regular file") != std::string::npos);
        CHECK(errors.find("folder.toml: is a folder") != std::string::npos);
        CHECK(errors.find("deep.toml:1: a key or table header of 50001 dotted parts") != std::string::npos);
        // --check on the same files says the same.
        CHECK(parse_lesson_file(dir / "fifo.toml").errors.at(0).message.find("is a FIFO") == 0);
        CHECK(parse_lesson_file(dir / "zero.toml").errors.at(0).message.find("is a device") == 0);
    }

    TEST_CASE("a lesson file over 1 MiB is refused before it is parsed") {
        TempDir dir("big-lesson");
        write_text(dir / "big.toml", "# " + std::string(2 << 20, 'x') + "\n");
        LessonLoad load = parse_lesson_file(dir / "big.toml");
        REQUIRE(load.errors.size() == 1);
        CHECK(load.errors[0].message.find("larger than any lesson file gpulab reads (at most 1.00 MiB)") !=
              std::string::npos);
    }

    TEST_CASE("a comparison file that is a FIFO or /dev/zero is refused - not read forever") {
        TempDir dir("compare");
        REQUIRE(::mkfifo((dir / "other.csv").c_str(), 0600) == 0);
        fs::create_symlink("/dev/zero", dir / "zero.csv");
        for (const char* name : {"other.csv", "zero.csv"}) {
            CAPTURE(name);
            try {
                load_compare_file(dir / name);
                FAIL("expected InputError");
            } catch (const InputError& e) {
                CHECK(std::string(e.what()).find("not a regular file") != std::string::npos);
            }
        }
    }
}
