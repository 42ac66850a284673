// .npy round trip and rejection of malformed files; image decoding errors; the hostile inputs the
// reliability probe (issue 16) found, each refused with a sentence instead of a crash, a wrap or a
// huge allocation; and a write to a full disk reported as a failure.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "file_size_limit.h"
#include "io/image_io.h"

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
    TEST_CASE("hostile shapes are refused before any allocation") {
        const std::string p = temp_path("hostile-shape.npy");
        const auto header = [](const std::string& shape) {
            return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
        };
        // A dimension past 64 bits used to escape as std::out_of_range from stoll and abort.
        write_bytes(p, npy_with_header(header("(99999999999999999999999,)"), 0));
        CHECK(error_of(p).find("too large to address") != std::string::npos);
        // A product that wraps int64_t.
        write_bytes(p, npy_with_header(header("(4611686018427387904, 4611686018427387904)"), 0));
        CHECK(error_of(p).find("too large to address") != std::string::npos);
        // (2^62,) with no data: count * 4 wrapped size_t to 0 and passed, then std::length_error.
        write_bytes(p, npy_with_header(header("(4611686018427387904,)"), 0));
        CHECK(error_of(p).find("file is truncated") != std::string::npos);
        // (1, 1, 2^31) in a small file: refused from the file's length, not after allocating 8 GiB.
        write_bytes(p, npy_with_header(header("(1, 1, 2147483648)"), 332));
        const auto start = std::chrono::steady_clock::now();
        const std::string err = error_of(p);
        CHECK(err.find("file is truncated") != std::string::npos);
        CHECK(err.find("the file has 332") != std::string::npos);
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
        // A 0 dimension handed a null pointer to memcpy: now an empty array is refused by name.
        write_bytes(p, npy_with_header(header("(0, 3)"), 0));
        CHECK(error_of(p).find("the array is empty") != std::string::npos);
        write_bytes(p, npy_with_header(header("(2, x)"), 8));
        CHECK(error_of(p).find("not a tuple of whole numbers") != std::string::npos);
        fs::remove(p);
    }
    TEST_CASE("a long or lying header is refused without a regex blowing the stack") {
        const std::string p = temp_path("long-header.npy");
        // Version 2 header of 60,000 bytes of shape text: libstdc++'s std::regex recursed per character.
        std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::string(60000, ' ') + "1,), }";
        std::string s("\x93NUMPY\x02\x00", 8);
        const uint32_t n = static_cast<uint32_t>(dict.size());
        for (int i = 0; i < 4; ++i) s += static_cast<char>((n >> (8 * i)) & 0xff);
        write_bytes(p, s + dict + std::string(4, '\0'));
        CHECK(read_npy(p).size() == 1);
        // A header length past NumPy's own limit, or past the end of the file.
        std::string big("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12);
        write_bytes(p, big);
        CHECK(error_of(p).find("corrupt .npy header") != std::string::npos);
        write_bytes(p, std::string("\x93NUMPY\x01\x00\xff\x7f", 10));
        CHECK(error_of(p).find("truncated .npy header") != std::string::npos);
        fs::remove(p);
    }
    TEST_CASE("special files are refused - not read forever") {
        const std::string fifo = temp_path("fifo.npy");
        fs::remove(fifo);
        REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
        CHECK(error_of(fifo).find("is a FIFO") != std::string::npos);
        try {
            load_image_gray(fifo);
            FAIL("expected InputError");
        } catch (const InputError& e) {
            CHECK(std::string(e.what()).find("is a FIFO") != std::string::npos);
        }
        fs::remove(fifo);
        const std::string zero = temp_path("zero.npy");
        fs::remove(zero);
        fs::create_symlink("/dev/zero", zero);
        CHECK(error_of(zero).find("is a device") != std::string::npos);
        fs::remove(zero);
        CHECK(error_of(fs::temp_directory_path().string()).find("is a folder") != std::string::npos);
    }
    TEST_CASE("a write that runs out of room is an error - not a silent success - and leaves the earlier file") {
        // A file-size limit refuses the bytes past it, as a full disk does (EFBIG rather than
        // ENOSPC); with SIGXFSZ ignored, as gpulab's main() does, the write returns the error.
        const std::string path = (fs::temp_directory_path() / "gpulab_test_npy_room.npy").string();
        fs::remove(path);
        write_npy(path, Tensor::zeros({2, 2}));  // a good earlier file
        const auto before = fs::file_size(path);
        std::string error;
        {
            const FileSizeLimit full(4096);
            REQUIRE(full.ok());
            try {
                write_npy(path, Tensor::zeros({64, 64}));  // 16 KiB
            } catch (const InputError& e) {
                error = e.what();
            }
        }
        CHECK(error.find("cannot write " + path + ": File too large after") == 0);
        CHECK(error.find("was left as it was") != std::string::npos);
        CHECK(fs::file_size(path) == before);  // the earlier file, whole
        fs::remove(path);
        // A device is not a file gpulab writes: /dev/full (which refuses every byte) is refused first.
        try {
            write_npy("/dev/full", Tensor::zeros({2, 2}));
            FAIL("expected InputError");
        } catch (const InputError& e) {
            CHECK(std::string(e.what()).find("cannot write /dev/full: it is a device, not a regular file") == 0);
        }
    }
    TEST_CASE("a picture header that claims more pixels than the file can hold is refused (found by fuzz_image)") {
        const std::string pgm = std::string("P5\n20 9999998\n255\n") + std::string(16, '\x7f');
        try {
            decode_image_gray(pgm, "tall.pgm");
            FAIL("expected InputError");
        } catch (const InputError& e) {
            CHECK(std::string(e.what()) ==
                  "tall.pgm: a 20x9999998 picture cannot fit in 34 bytes: the file is truncated or corrupt");
        }
        const std::string ok = std::string("P5\n3 2\n255\n") + std::string(6, '\x7f');
        CHECK(decode_image_gray(ok, "ok.pgm").shape == std::vector<int64_t>{2, 3});
    }
}
