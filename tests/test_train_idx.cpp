// The IDX reader (core/train/idx.h) and the data-set loader (core/train/dataset.h): good files,
// raw and gzipped, read back exactly; truncated, wrong-magic, oversized-header and mismatched files
// refused with one sentence that names the file and the fix. The files are generated here.
#include <doctest/doctest.h>

#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/image_io.h"
#include "train/dataset.h"
#include "train/idx.h"

using namespace gpulab;
namespace fs = std::filesystem;

namespace {

std::string be32(std::uint32_t v) {
    return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

// An IDX image file of `count` images of rows x cols, pixel i = i % 251.
std::string idx_images(std::uint32_t count, std::uint32_t rows, std::uint32_t cols) {
    std::string s = be32(0x0803) + be32(count) + be32(rows) + be32(cols);
    for (std::uint32_t i = 0; i < count * rows * cols; ++i) s += static_cast<char>(i % 251);
    return s;
}
std::string idx_labels(std::uint32_t count) {
    std::string s = be32(0x0801) + be32(count);
    for (std::uint32_t i = 0; i < count; ++i) s += static_cast<char>(i % 10);
    return s;
}

std::string gzip(const std::string& raw) {
    z_stream z{};
    REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&z, raw.size()), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
    z.avail_in = static_cast<uInt>(raw.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("gpulab_idx_test_" + std::to_string(::getpid()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
    std::string write(const std::string& name, const std::string& bytes) const {
        const std::string p = (path / name).string();
        std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return p;
    }
};

std::string error_of(const std::string& bytes, bool labels = false) {
    try {
        if (labels) train::parse_idx_labels(bytes, "f.idx");
        else train::parse_idx_images(bytes, "f.idx");
    } catch (const core::InputError& e) {
        return e.what();
    }
    return "";
}

bool has(const std::string& text, const std::string& part) {
    INFO(text);
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("train") {

TEST_CASE("IDX images and labels read back exactly - raw and gzipped") {
    const std::string raw = idx_images(3, 4, 5);
    for (const std::string& bytes : {raw, gzip(raw)}) {
        const train::IdxImages im = train::parse_idx_images(bytes, "x");
        CHECK(im.count == 3);
        CHECK(im.rows == 4);
        CHECK(im.cols == 5);
        REQUIRE(im.pixels.size() == 60);
        CHECK(im.pixels[59] == 59);
    }
    const std::vector<std::uint8_t> labels = train::parse_idx_labels(gzip(idx_labels(12)), "y");
    REQUIRE(labels.size() == 12);
    CHECK(labels[11] == 1);
}

TEST_CASE("a gzip file of several members (cat a.gz b.gz) reads as one, as zcat does (issue 31)") {
    const std::string raw = idx_images(6, 5, 7);
    const std::string two = gzip(raw.substr(0, 10)) + gzip(raw.substr(10, 40)) + gzip(raw.substr(50));
    const train::IdxImages a = train::parse_idx_images(two, "x");
    const train::IdxImages b = train::parse_idx_images(raw, "x");
    CHECK(a.count == b.count);
    CHECK(a.pixels == b.pixels);
}

TEST_CASE("truncated IDX files are refused with the counts and the fix") {
    const std::string raw = idx_images(3, 4, 5);
    CHECK(has(error_of(raw.substr(0, raw.size() - 1)), "f.idx: is truncated: 59 of the 60 values"));
    CHECK(has(error_of(raw.substr(0, raw.size() - 1)), "apt-get install --reinstall dataset-fashion-mnist"));
    const std::string gz = gzip(idx_images(50, 28, 28));
    CHECK(has(error_of(gz.substr(0, gz.size() / 2)), "is truncated"));
    CHECK(has(error_of(raw.substr(0, 10)), "ends inside its IDX header"));
    CHECK(has(error_of(""), "is empty or shorter than an IDX header"));
    CHECK(has(error_of(raw + "x"), "has more data than its header announces"));
}

TEST_CASE("wrong magic - wrong kind and absurd sizes are refused before allocating") {
    CHECK(has(error_of("\x89PNG\r\n\x1a\n........"), "is not an IDX image file: its magic number is 0x89504E47"));
    CHECK(has(error_of("\x89PNG\r\n\x1a\n........"), "pass --data a folder"));
    CHECK(has(error_of(idx_labels(4)), "(it has 1 dimensions, not 3)"));
    CHECK(has(error_of(idx_images(1, 2, 2), true), "is not an IDX label file"));
    CHECK(has(error_of(be32(0x0D03) + be32(1) + be32(1) + be32(1) + "abcd"), "not unsigned bytes"));
    // 4 billion images of 4 billion pixels: refused by the cap, nothing allocated.
    CHECK(has(error_of(be32(0x0803) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF) + be32(0xFFFFFFFF)), "more than the"));
    // A header announcing 100 MB in a 30-byte file, raw and gzipped: refused against the real length.
    const std::string big = be32(0x0803) + be32(100000) + be32(32) + be32(32) + "abcd";
    CHECK(has(error_of(big), "is truncated: 4 of the 102400000 values"));
    CHECK(has(error_of(gzip(big)), "gzip bytes cannot hold the 102400000 values"));
    CHECK(has(error_of(be32(0x0803) + be32(0) + be32(28) + be32(28)), "dimension 1 is 0"));
    std::string damaged = gzip(idx_images(3, 4, 5));
    damaged[damaged.size() / 2] ^= 0x55;
    damaged[damaged.size() / 2 + 1] ^= 0x55;
    CHECK(!error_of(damaged).empty());
}

TEST_CASE("a data-set folder loads - and missing or mismatched files are one sentence") {
    TempDir dir;
    dir.write("train-images-idx3-ubyte.gz", gzip(idx_images(20, 28, 28)));
    dir.write("train-labels-idx1-ubyte.gz", gzip(idx_labels(20)));
    dir.write("t10k-images-idx3-ubyte", idx_images(7, 28, 28));
    const std::string folder = dir.path.string();
    try {
        train::load_dataset(folder);
        FAIL("a missing label file was accepted");
    } catch (const core::InputError& e) {
        CHECK(has(e.what(), "no t10k-labels-idx1-ubyte[.gz] in " + folder + ": pass --data a folder holding"));
    }
    dir.write("t10k-labels-idx1-ubyte", idx_labels(7));
    const train::Dataset d = train::load_dataset(folder);
    CHECK(d.train.count == 20);
    CHECK(d.test.count == 7);
    CHECK(d.test.labels[6] == 6);
    const train::Dataset small = train::load_dataset(folder, 5);
    CHECK(small.train.count == 5);
    CHECK(small.train.pixels.size() == 5u * 784u);
    CHECK(small.test.labels.size() == 5);

    dir.write("t10k-labels-idx1-ubyte", idx_labels(8));
    try {
        train::load_dataset(folder);
        FAIL("mismatched counts were accepted");
    } catch (const core::InputError& e) {
        CHECK(has(e.what(), "holds 8 labels but"));
    }
    try {
        train::load_dataset(folder + "/nowhere");
        FAIL("a missing folder was accepted");
    } catch (const core::InputError& e) {
        CHECK(has(e.what(), "no data set at"));
    }
    try {
        train::load_dataset(train::kFashionMnistDir + std::string("-not-installed"));
    } catch (const core::InputError& e) {
        CHECK(has(e.what(), "pass --data"));
    }
}

TEST_CASE("Debian's Fashion-MNIST - when installed - loads with its real sizes") {
    if (train::find_idx_file(train::kFashionMnistDir, "train-images-idx3-ubyte").empty()) {
        MESSAGE("dataset-fashion-mnist not installed: skipped");
        return;
    }
    const train::Dataset d = train::load_dataset(train::kFashionMnistDir, 100);
    CHECK(d.train.rows == 28);
    CHECK(d.train.cols == 28);
    CHECK(d.train.count == 100);
    CHECK(d.test.count == 100);
    CHECK(d.train.labels[0] == 9);  // the first training image is an ankle boot
}

}  // TEST_SUITE
