// IDX files, the format of MNIST and Fashion-MNIST: a 4-byte magic (0, 0, type 0x08 = unsigned
// bytes, number of dimensions), one big-endian uint32 per dimension, then the values in C order.
// Images are 3-dimensional (count, rows, cols), labels 1-dimensional (count). Files may be gzipped
// (detected by the gzip magic, not the name) and are inflated with zlib.
//
// Hostile or damaged files are refused with one sentence that names the file, what is wrong and
// the fix, never a crash or a huge allocation: the size the header announces is checked against
// the real file length before anything is allocated (for a gzipped file: against deflate's
// maximum ratio of 1032:1 and a cap, then the inflated stream must end exactly where the header
// says). Verified by tests/test_train_idx.cpp (good, truncated, wrong-magic, gzipped files) and
// fuzzed by tests/fuzz/fuzz_idx.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::train {

// Largest IDX file gpulab reads, inflated: 1 GiB (MNIST's training images are 47 MB).
inline constexpr std::int64_t kMaxIdxBytes = 1LL << 30;

struct IdxImages {
    std::int64_t count = 0, rows = 0, cols = 0;
    std::vector<std::uint8_t> pixels;  // count * rows * cols, row-major, 0 = background
};

// Parse a whole IDX file already in memory (raw or gzipped); `name` is used in messages.
// Throw core::InputError with one sentence on any problem.
IdxImages parse_idx_images(std::string_view bytes, const std::string& name);
std::vector<std::uint8_t> parse_idx_labels(std::string_view bytes, const std::string& name);

// The same from a file (regular files only, through core::InputFile).
IdxImages read_idx_images(const std::string& path);
std::vector<std::uint8_t> read_idx_labels(const std::string& path);

}  // namespace gpulab::train
