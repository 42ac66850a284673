// Loads libcudnn.so.9 with dlopen and resolves the entry points listed in cudnn_library.h. See the
// header for why; checked against dlopen(3)/dlsym(3) and cuDNN 9's cudnnGetVersion() documentation
// (docs/gpu-verification.md).
#include "cudnn_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "gpu_backends.h"

namespace gpulab::cuda {

namespace {

const std::string kSoname = "libcudnn.so." + std::to_string(kCudnnMajor);

std::string dl_error() {
    const char* e = dlerror();
    return e != nullptr ? e : "unknown dlopen error";
}

// Where to look, in order. An entry without a slash goes through the dynamic loader's own search.
std::vector<std::string> search_list() {
    if (const char* dir = std::getenv("GPULAB_CUDNN_DIR"); dir != nullptr && dir[0] != '\0') {
        return {std::string(dir) + "/" + kSoname};
    }
    std::vector<std::string> list{kSoname};
#ifdef GPULAB_CUDNN_BUILD_DIR
    list.push_back(std::string(GPULAB_CUDNN_BUILD_DIR) + "/" + kSoname);
#endif
    list.push_back("/usr/local/cuda/lib64/" + kSoname);
    list.push_back("/usr/local/cuda/lib/" + kSoname);
    return list;
}

// Another major version lying next to where we looked: named in the reason so a student with only
// cuDNN 8 reads "found libcudnn.so.8 (cuDNN 8); gpulab needs cuDNN 9" rather than a bare "not found".
std::string other_majors_hint(const std::vector<std::string>& tried) {
    for (int major : {kCudnnMajor + 1, kCudnnMajor - 1}) {
        for (const std::string& t : tried) {
            const std::string dir = t.find('/') == std::string::npos ? "" : t.substr(0, t.rfind('/') + 1);
            const std::string other = dir + "libcudnn.so." + std::to_string(major);
            if (void* h = dlopen(other.c_str(), RTLD_LAZY | RTLD_LOCAL)) {
                dlclose(h);
                return "; found " + other + " (cuDNN " + std::to_string(major) + "), but gpulab needs cuDNN " +
                       std::to_string(kCudnnMajor);
            }
        }
    }
    return "";
}

// Opens the first candidate that loads, checks its major version and resolves every entry point.
// On success `handle` stays open and `api` is filled.
CudnnLoad load_from(const std::vector<std::string>& candidates, CudnnApi& api, void*& handle) {
    CudnnLoad out;
    std::string first_error;
    for (const std::string& c : candidates) {
        dlerror();
        handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle != nullptr) {
            out.path = c;
            break;
        }
        if (first_error.empty()) first_error = dl_error();
    }
    if (handle == nullptr) {
        // The loader's own words only when they add something to "not found" (a broken file, a
        // missing dependency of cuDNN's).
        const bool plain_absence = first_error.find("No such file or directory") != std::string::npos;
        out.reason = kSoname + " not found" + (plain_absence ? "" : " (" + first_error + ")") +
                     other_majors_hint(candidates) +
                     ": install cuDNN 9 for CUDA 13, or set GPULAB_CUDNN_DIR to the folder that holds it";
        return out;
    }
    // The version first: a library of another major version would not have the same functions.
    auto get_version = reinterpret_cast<decltype(&::cudnnGetVersion)>(dlsym(handle, "cudnnGetVersion"));
    if (get_version == nullptr) {
        out.reason = out.path + " has no cudnnGetVersion: not a cuDNN library";
    } else {
        out.version = get_version();
        if (cudnn_major(out.version) != kCudnnMajor) {
            out.reason = out.path + " reports cuDNN " + format_cudnn_version(out.version) + "; gpulab needs cuDNN " +
                         std::to_string(kCudnnMajor);
        }
    }
    if (out.reason.empty()) {
        std::string missing;
#define GPULAB_CUDNN_RESOLVE(name)                                                      \
    api.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));              \
    if (api.name == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(#name);
        GPULAB_CUDNN_FUNCTIONS(GPULAB_CUDNN_RESOLVE)
#undef GPULAB_CUDNN_RESOLVE
        if (!missing.empty()) out.reason = out.path + " lacks " + missing;
    }
    if (!out.reason.empty()) {
        dlclose(handle);
        handle = nullptr;
        api = CudnnApi{};
        return out;
    }
    out.api = &api;
    return out;
}

}  // namespace

int cudnn_major(std::size_t v) { return static_cast<int>(v >= 90000 ? v / 10000 : v / 1000); }

std::string format_cudnn_version(std::size_t v) {
    const bool v9_style = v >= 90000;
    const std::size_t minor = v9_style ? (v % 10000) / 100 : (v % 1000) / 100;
    return std::to_string(cudnn_major(v)) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

const CudnnLoad& load_cudnn() {
    // Loaded once and never unloaded: cuDNN keeps its own sub-libraries and state for the process.
    static CudnnApi api;
    static void* handle = nullptr;
    static CudnnLoad result;
    static std::once_flag once;
    std::call_once(once, [] { result = load_from(search_list(), api, handle); });
    return result;
}

const CudnnApi& cudnn_api() {
    const CudnnLoad& l = load_cudnn();
    if (l.api == nullptr) throw CudaError("cuDNN is not available: " + l.reason);
    return *l.api;
}

CudnnLoad try_load_cudnn_from(const std::string& dir) {
    CudnnApi api;
    void* handle = nullptr;
    CudnnLoad out = load_from({dir + "/" + kSoname}, api, handle);
    if (handle != nullptr) dlclose(handle);
    out.api = nullptr;
    return out;
}

}  // namespace gpulab::cuda

namespace gpulab::gpu {

core::Availability check_cudnn_library(const std::string& dir) {
    const cuda::CudnnLoad l = cuda::try_load_cudnn_from(dir);
    if (!l.reason.empty()) return {false, l.reason};
    return {true, cuda::format_cudnn_version(l.version)};
}

}  // namespace gpulab::gpu
