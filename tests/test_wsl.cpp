// core/measure/wsl.h: WSL2 told apart from native Linux by the kernel release, and the Windows driver's
// libcuda.so.1 looked for where WSL puts it. Stand-in files play /proc and /usr/lib/wsl/lib.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "measure/wsl.h"

namespace {

std::filesystem::path scratch(const char* name) {
    const auto dir = std::filesystem::temp_directory_path() / "gpulab-wsl-test" / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

}  // namespace

TEST_SUITE("machine") {
    TEST_CASE("a native Linux kernel is not WSL and gets no note") {
        const auto dir = scratch("native");
        write(dir / "osrelease", "6.1.0-28-amd64\n");
        const auto w = gpulab::core::detect_wsl((dir / "osrelease").string(), (dir / "lib").string());
        CHECK_FALSE(w.wsl);
        CHECK(w.note.empty());
    }

    TEST_CASE("WSL2 with the Windows driver's libcuda names it and says interop falls back to host upload") {
        const auto dir = scratch("wsl-driver");
        write(dir / "osrelease", "5.15.167.4-microsoft-standard-WSL2\n");
        std::filesystem::create_directories(dir / "lib");
        write(dir / "lib" / "libcuda.so.1", "");
        const auto w = gpulab::core::detect_wsl((dir / "osrelease").string(), (dir / "lib").string());
        CHECK(w.wsl);
        CHECK(w.driver_present);
        CHECK(w.note.find("Windows' own") != std::string::npos);
        CHECK(w.note.find("host upload") != std::string::npos);
    }

    TEST_CASE("WSL2 without libcuda.so.1 tells the student to install the driver on Windows") {
        const auto dir = scratch("wsl-nodriver");
        write(dir / "osrelease", "5.15.90.1-microsoft-standard-WSL2\n");
        const auto w = gpulab::core::detect_wsl((dir / "osrelease").string(), (dir / "lib").string());
        CHECK(w.wsl);
        CHECK_FALSE(w.driver_present);
        CHECK(w.note.find("on Windows (not inside WSL)") != std::string::npos);
    }
}
