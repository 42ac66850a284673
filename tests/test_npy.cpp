// .npy round trip and rejection of malformed files; image decoding errors.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "image_io.h"

using namespace gpulab::core;
namespace fs = std::filesystem;

namespace {
std::string temp_path(const std::string& name) { return (fs::temp_directory_path() / ("gpulab_test_" + name)).string(); }
void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
std::string npy_with_header(const std::string& dict, std::size_t data_bytes) {
    std::string header = dict;
    std::size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string s("\x93NUMPY\x01\x00", 8);
    s += static_cast<char>(header.size() & 0xff);
    s += static_cast<char>(header.size() >> 8);
    s += header;
    s.append(data_bytes, '\0');
    return s;
}
std::string error_of(const std::string& path) {
    try {
        read_npy(path);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}
}  // namespace

TEST_SUITE("npy") {
    TEST_CASE("float32 round trip keeps shape and values") {
        Tensor t = Tensor::zeros({2, 3, 5});
        for (int64_t i = 0; i < t.size(); ++i) t.data[i] = static_cast<float>(i) * 0.5f - 3.0f;
        const std::string p = temp_path("roundtrip.npy");
        write_npy(p, t);
        CHECK((fs::file_size(p) - t.bytes()) % 64 == 0);  // the spec pads the header to 64 bytes
        Tensor r = read_npy(p);
        CHECK(r.shape == t.shape);
        CHECK(r.data == t.data);
        fs::remove(p);
    }
    TEST_CASE("1-D arrays and float64 input convert") {
        const std::string p = temp_path("f8.npy");
        std::string bytes = npy_with_header("{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", 0);
        double values[3] = {1.5, -2.0, 1e10};
        bytes.append(reinterpret_cast<const char*>(values), sizeof values);
        write_bytes(p, bytes);
        Tensor r = read_npy(p);
        CHECK(r.shape == std::vector<int64_t>{3});
        CHECK(r.data[0] == 1.5f);
        CHECK(r.data[1] == -2.0f);
        fs::remove(p);
    }
    TEST_CASE("malformed files are refused with a message naming the problem") {
        const std::string p = temp_path("bad.npy");
        write_bytes(p, "hello world, not numpy");
        CHECK(error_of(p).find("not a .npy file") != std::string::npos);

        write_bytes(p, npy_with_header("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }", 10));
        CHECK(error_of(p).find("truncated") != std::string::npos);

        write_bytes(p, npy_with_header("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16));
        CHECK(error_of(p).find("unsupported dtype '<c8'") != std::string::npos);

        write_bytes(p, npy_with_header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16));
        CHECK(error_of(p).find("Fortran-order") != std::string::npos);

        write_bytes(p, npy_with_header("{'descr': '<f4', 'fortran_order': False}", 16));
        CHECK(error_of(p).find("no 'shape'") != std::string::npos);

        CHECK(error_of(temp_path("does-not-exist.npy")).find("cannot open") != std::string::npos);
        fs::remove(p);
    }
    TEST_CASE("an image that cannot be decoded is refused clearly") {
        const std::string p = temp_path("broken.png");
        write_bytes(p, "\x89PNG\r\n\x1a\n garbage");
        try {
            load_image_gray(p);
            FAIL("expected InputError");
        } catch (const InputError& e) {
            CHECK(std::string(e.what()).find("cannot decode image") != std::string::npos);
        }
        fs::remove(p);
    }
}
