// cuDNN is loaded at run time (kernels/libraries/cudnn_library.cpp), so a binary built with cuDNN support
// starts on machines without it and says why the cudnn backend is unavailable. These tests reach the
// loader's "missing" and "wrong major version" paths by pointing it at folders the test controls.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "gpu_backends.h"

namespace {

// A fresh empty folder under the system temp dir.
std::filesystem::path empty_dir(const char* name) {
    const auto dir = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

bool cudnn_support_built() {
    const auto& p = gpulab::gpu::probe();
    if (!p.cudnn_compiled_in) {
        std::cout << "SKIPPED: this build has no cuDNN support (" << p.cudnn_reason << ")\n";
        return false;
    }
    return true;
}

}  // namespace

TEST_SUITE("backends") {
    TEST_CASE("the cuDNN loader says libcudnn.so.9 is missing and how to point at it") {
        if (!cudnn_support_built()) return;
        const auto dir = empty_dir("gpulab-no-cudnn");
        const auto av = gpulab::gpu::check_cudnn_library(dir.string());
        CHECK_FALSE(av.ok);
        CHECK(av.reason.find("libcudnn.so.9 not found") != std::string::npos);
        CHECK(av.reason.find("GPULAB_CUDNN_DIR") != std::string::npos);
    }

    TEST_CASE("the cuDNN loader refuses a library of another major version with both versions named") {
        if (!cudnn_support_built()) return;
        const auto av = gpulab::gpu::check_cudnn_library(GPULAB_FAKE_CUDNN8_DIR);
        CHECK_FALSE(av.ok);
        CHECK(av.reason.find("reports cuDNN 8.9.7; gpulab needs cuDNN 9") != std::string::npos);
        CHECK(av.reason.find("GPULAB_CUDNN_DIR") != std::string::npos);
    }

    TEST_CASE("the cuDNN loader tells a file that does not load from a missing one, in the dynamic loader's words") {
        if (!cudnn_support_built()) return;
        const auto dir = empty_dir("gpulab-broken-cudnn");
        std::ofstream(dir / "libcudnn.so.9") << "not a shared library\n";
        const auto av = gpulab::gpu::check_cudnn_library(dir.string());
        CHECK_FALSE(av.ok);
        CHECK(av.reason.find("libcudnn.so.9 could not be loaded (") != std::string::npos);
        CHECK(av.reason.find("GPULAB_CUDNN_DIR") != std::string::npos);
    }

    TEST_CASE("an installed cuDNN 9 loads at run time and reports its version") {
        if (!cudnn_support_built()) return;
        const auto& p = gpulab::gpu::probe();
        if (p.cudnn_library_missing) {
            std::cout << "SKIPPED: no cuDNN 9 on this machine (" << p.cudnn_reason << ")\n";
            return;
        }
        CHECK(p.cudnn_version.rfind("9.", 0) == 0);
        // Without a device the backend names the device's reason; the library itself was fine.
        if (!p.device_ok) CHECK(p.cudnn_reason.find("no CUDA device") != std::string::npos);
    }
}
