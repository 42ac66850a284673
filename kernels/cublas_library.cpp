// Loads libcublas.so.13 with dlopen and resolves the entry points listed in cublas_library.h. See
// the header for why. libcublas.so.13 needs libcublasLt.so.13, which the loader finds through
// libcublas's own RUNPATH ($ORIGIN, checked with readelf -d): the two must lie in one folder.
#include "cublas_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "cuda_check.cuh"
#include "cudnn_train_engine.h"

namespace gpulab::cuda {

namespace {

const std::string kSoname = "libcublas.so." + std::to_string(kCublasMajor);

std::vector<std::string> search_list() {
    if (const char* dir = std::getenv("GPULAB_CUBLAS_DIR"); dir != nullptr && dir[0] != '\0')
        return {std::string(dir) + "/" + kSoname};
    std::vector<std::string> list{kSoname};
#ifdef GPULAB_CUDA_LIBRARY_DIR
    list.push_back(std::string(GPULAB_CUDA_LIBRARY_DIR) + "/" + kSoname);
#endif
    list.push_back("/usr/local/cuda/lib64/" + kSoname);
    return list;
}

CublasLoad load_from(const std::vector<std::string>& candidates, CublasApi& api, void*& handle) {
    CublasLoad out;
    std::string first_error;
    for (const std::string& c : candidates) {
        dlerror();
        handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle != nullptr) {
            out.path = c;
            break;
        }
        if (first_error.empty()) {
            const char* e = dlerror();
            first_error = e != nullptr ? e : "unknown dlopen error";
        }
    }
    if (handle == nullptr) {
        const bool plain_absence = first_error.find("No such file") != std::string::npos;
        out.reason = kSoname + " not found" + (plain_absence ? "" : " (" + first_error + ")") +
                     ": install the CUDA " + std::to_string(kCublasMajor) +
                     " toolkit's cuBLAS, or set GPULAB_CUBLAS_DIR to the folder that holds it";
        return out;
    }
    std::string missing;
#define GPULAB_CUBLAS_RESOLVE(name)                                                   \
    api.name = reinterpret_cast<decltype(&::name)>(dlsym(handle, #name));            \
    if (api.name == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(#name);
    GPULAB_CUBLAS_FUNCTIONS(GPULAB_CUBLAS_RESOLVE)
#undef GPULAB_CUBLAS_RESOLVE
    int major = 0, minor = 0, patch = 0;
    if (missing.empty()) {
        api.cublasGetProperty(MAJOR_VERSION, &major);
        api.cublasGetProperty(MINOR_VERSION, &minor);
        api.cublasGetProperty(PATCH_LEVEL, &patch);
        out.version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    }
    if (!missing.empty()) {
        out.reason = out.path + " lacks " + missing;
    } else if (major != kCublasMajor) {
        out.reason = out.path + " reports cuBLAS " + out.version + "; gpulab needs cuBLAS " + std::to_string(kCublasMajor);
    }
    if (!out.reason.empty()) {
        dlclose(handle);
        handle = nullptr;
        api = CublasApi{};
        return out;
    }
    out.api = &api;
    return out;
}

}  // namespace

const CublasLoad& load_cublas() {
    // Loaded once and never unloaded, like cuDNN.
    static CublasApi api;
    static void* handle = nullptr;
    static CublasLoad result;
    static std::once_flag once;
    std::call_once(once, [] { result = load_from(search_list(), api, handle); });
    return result;
}

const CublasApi& cublas_api() {
    const CublasLoad& l = load_cublas();
    if (l.api == nullptr) throw CudaError("cuBLAS is not available: " + l.reason);
    return *l.api;
}

CublasLoad try_load_cublas_from(const std::string& dir) {
    CublasApi api;
    void* handle = nullptr;
    CublasLoad out = load_from({dir + "/" + kSoname}, api, handle);
    if (handle != nullptr) dlclose(handle);
    out.api = nullptr;
    return out;
}

}  // namespace gpulab::cuda

namespace gpulab::gpu {

core::Availability check_cublas_library(const std::string& dir) {
    const cuda::CublasLoad l = cuda::try_load_cublas_from(dir);
    if (!l.reason.empty()) return {false, l.reason};
    return {true, l.version};
}

}  // namespace gpulab::gpu
