// Describes libcublas.so.13 to the shared run-time loader (runtime_library.h) and lists the entry
// points of cublas_library.h. See that header for why cuBLAS is loaded at run time. libcublas.so.13
// needs libcublasLt.so.13, which the loader finds through libcublas's own RUNPATH ($ORIGIN, checked
// with readelf -d): the two must lie in one folder.
#include "cublas_library.h"

#include <string>
#include <vector>

#include "gpu_backends.h"

namespace gpulab::cuda {

namespace {

// cublasGetProperty read before anything else is resolved, like cuDNN's version.
std::string check_version(void* version_fn, std::string& version) {
    const auto get = reinterpret_cast<decltype(&::cublasGetProperty)>(version_fn);
    int major = 0, minor = 0, patch = 0;
    if (get(MAJOR_VERSION, &major) != CUBLAS_STATUS_SUCCESS || get(MINOR_VERSION, &minor) != CUBLAS_STATUS_SUCCESS ||
        get(PATCH_LEVEL, &patch) != CUBLAS_STATUS_SUCCESS) {
        return "does not tell its version (cublasGetProperty failed)";
    }
    version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    if (major == kCublasMajor) return "";
    return "reports cuBLAS " + version + "; gpulab needs cuBLAS " + std::to_string(kCublasMajor);
}

std::vector<RuntimeSymbol> symbols(CublasApi& api) {
    return {
#define GPULAB_CUBLAS_SLOT(name) {#name, &api.name},
        GPULAB_CUBLAS_FUNCTIONS(GPULAB_CUBLAS_SLOT)
#undef GPULAB_CUBLAS_SLOT
        {"cublasGemmEx", &api.cublasGemmEx},  // typed out in cublas_library.h (overloaded in C++)
    };
}

// Looked for through the dynamic loader's search path first, then the build's toolkit folder, then
// /usr/local/cuda; only in $GPULAB_CUBLAS_DIR when that is set.
RuntimeLibrary<CublasApi>& library() {
    static RuntimeLibrary<CublasApi> lib(
        [] {
            RuntimeLibrarySpec s;
            s.name = "cuBLAS";
            s.soname = "libcublas.so." + std::to_string(kCublasMajor);
            s.dir_env = "GPULAB_CUBLAS_DIR";
#ifdef GPULAB_CUDA_LIBRARY_DIR
            s.fallback_dirs.push_back(GPULAB_CUDA_LIBRARY_DIR);
#endif
            s.fallback_dirs.push_back("/usr/local/cuda/lib64");
            s.fix = "install the CUDA " + std::to_string(kCublasMajor) + " toolkit's cuBLAS";
            s.version_symbol = "cublasGetProperty";
            s.check_version = check_version;
            return s;
        }(),
        symbols);
    return lib;
}

}  // namespace

const CublasLoad& load_cublas() { return library().load(); }

const CublasApi& cublas_api() { return library().api(); }

CublasLoad try_load_cublas_from(const std::string& dir) { return library().try_load_from(dir); }

}  // namespace gpulab::cuda

namespace gpulab::gpu {

core::Availability check_cublas_library(const std::string& dir) {
    const cuda::CublasLoad l = cuda::try_load_cublas_from(dir);
    if (!l.reason.empty()) return {false, l.reason};
    return {true, l.version};
}

}  // namespace gpulab::gpu
