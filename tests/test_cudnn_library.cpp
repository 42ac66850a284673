// cuDNN is loaded at run time (kernels/libraries/cudnn_library.cpp), so a binary built with cuDNN support
// starts on machines without it and says why the cudnn backend is unavailable. These tests reach the
// loader's "missing" and "wrong major version" paths by pointing it at folders the test controls.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "gpu_backends.h"

#if defined(GPULAB_TEST_RUNTIME_LOADER)
#include <dlfcn.h>

#include <cstring>

#include "libraries/runtime_library.h"
#endif

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

    TEST_CASE("the cuDNN loader refuses a cuDNN 9 built for another CUDA, naming both") {
        if (!cudnn_support_built()) return;
        const auto av = gpulab::gpu::check_cudnn_library(GPULAB_FAKE_CUDNN9_CUDA12_DIR);
        CHECK_FALSE(av.ok);
        MESSAGE(av.reason);
        CHECK(av.reason.find("is a cuDNN built for CUDA 12; gpulab, built with CUDA 13, needs one built for CUDA 13") !=
              std::string::npos);
        // The CUDA 13 stand-in passes the version and the build and is refused only for lacking the
        // entry points a real cuDNN has.
        const auto right_cuda = gpulab::gpu::check_cudnn_library(GPULAB_FAKE_CUDNN9_CUDA13_DIR);
        CHECK(right_cuda.reason.find("built for CUDA") == std::string::npos);
        CHECK(right_cuda.reason.find(" lacks ") != std::string::npos);
    }

#if defined(GPULAB_TEST_RUNTIME_LOADER)
    TEST_CASE("the run-time loader tries the next candidate after one it refuses") {
        namespace rt = gpulab::cuda::runtime_library_detail;
        gpulab::cuda::RuntimeLibrarySpec spec;
        spec.name = "cuDNN";
        spec.soname = "libcudnn.so.9";
        spec.dir_env = "GPULAB_CUDNN_DIR";
        spec.fix = "install cuDNN 9 for CUDA 13";
        spec.version_symbol = "cudnnGetVersion";
        spec.check_version = [](void*, std::string& version) {
            version = "9.19.0";
            return std::string();
        };
        spec.check_build = [](void* handle) {
            std::size_t (*cudart)() = nullptr;
            void* address = dlsym(handle, "cudnnGetCudartVersion");
            std::memcpy(&cudart, &address, sizeof address);
            return cudart() / 1000 == 13 ? std::string() : std::string("is built for another CUDA");
        };
        const std::string bad = std::string(GPULAB_FAKE_CUDNN9_CUDA12_DIR) + "/libcudnn.so.9";
        const std::string good = std::string(GPULAB_FAKE_CUDNN9_CUDA13_DIR) + "/libcudnn.so.9";
        rt::Opened o = rt::open_library(spec, {bad, good}, {});
        CHECK(o.handle != nullptr);
        CHECK(o.path == good);
        rt::close_library(o.handle);
        // Refused and nothing after it: the refusal is the answer, not "not found".
        o = rt::open_library(spec, {"/nonexistent/libcudnn.so.9", bad}, {});
        CHECK(o.handle == nullptr);
        CHECK(o.reason.find(bad + " is built for another CUDA") == 0);
    }
#endif

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
