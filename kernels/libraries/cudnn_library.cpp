// Describes libcudnn.so.9 to the shared run-time loader (runtime_library.h) and lists the entry points
// of cudnn_library.h. See that header for why cuDNN is loaded at run time; checked against cuDNN 9's
// cudnnGetVersion() documentation (docs/gpu-verification.md).
#include "cudnn_library.h"

#include <cuda_runtime_api.h>  // CUDART_VERSION: the CUDA this build uses
#include <dlfcn.h>

#include <cstring>

#include <string>
#include <vector>

#include "gpu_backends.h"

namespace gpulab::cuda {

namespace {

const std::string kSoname = "libcudnn.so." + std::to_string(kCudnnMajor);

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

// cudnnGetVersion() read before anything else is resolved: cuDNN 8 lacks some of cuDNN 9's names.
std::string check_version(void* version_fn, std::string& version) {
    const std::size_t v = reinterpret_cast<decltype(&::cudnnGetVersion)>(version_fn)();
    version = format_cudnn_version(v);
    if (cudnn_major(v) == kCudnnMajor) return "";
    return "reports cuDNN " + version + "; gpulab needs cuDNN " + std::to_string(kCudnnMajor);
}

// cudnnGetCudartVersion(): the CUDA runtime cuDNN was built for (13000 for 13.0). A cuDNN 9 for CUDA 12
// loads CUDA 12's cuBLASLt for its engines, which a CUDA 13 program does not have: refused here so
// the loader tries the next candidate (issue 30, item 4).
std::string check_cuda_build(void* handle) {
    using Fn = std::size_t (*)();
    Fn cudart = nullptr;
    void* address = dlsym(handle, "cudnnGetCudartVersion");
    if (address == nullptr) return "";  // every cuDNN 9 has it; a library without it fails elsewhere
    std::memcpy(&cudart, &address, sizeof address);
    const int built_for = static_cast<int>(cudart() / 1000), ours = CUDART_VERSION / 1000;
    if (built_for == ours) return "";
    return "is a cuDNN built for CUDA " + std::to_string(built_for) + "; gpulab, built with CUDA " +
           std::to_string(ours) + ", needs one built for CUDA " + std::to_string(ours);
}

std::vector<RuntimeSymbol> symbols(CudnnApi& api) {
    return {
#define GPULAB_CUDNN_SLOT(name) {#name, &api.name},
        GPULAB_CUDNN_FUNCTIONS(GPULAB_CUDNN_SLOT)
#undef GPULAB_CUDNN_SLOT
    };
}

// Looked for through the dynamic loader's search path first, then where CMake found cuDNN, then
// /usr/local/cuda; only in $GPULAB_CUDNN_DIR when that is set.
RuntimeLibrary<CudnnApi>& library() {
    static RuntimeLibrary<CudnnApi> lib(
        [] {
            RuntimeLibrarySpec s;
            s.name = "cuDNN";
            s.soname = kSoname;
            s.dir_env = "GPULAB_CUDNN_DIR";
#ifdef GPULAB_CUDNN_BUILD_DIR
            s.fallback_dirs.push_back(GPULAB_CUDNN_BUILD_DIR);
#endif
            s.fallback_dirs.push_back("/usr/local/cuda/lib64");
            s.fallback_dirs.push_back("/usr/local/cuda/lib");
            s.fix = "install cuDNN " + std::to_string(kCudnnMajor) + " for CUDA 13";
            s.version_symbol = "cudnnGetVersion";
            s.check_version = check_version;
            s.check_build = check_cuda_build;
            s.absence_hint = other_majors_hint;
            return s;
        }(),
        symbols);
    return lib;
}

}  // namespace

int cudnn_major(std::size_t v) { return static_cast<int>(v >= 90000 ? v / 10000 : v / 1000); }

std::string format_cudnn_version(std::size_t v) {
    const bool v9_style = v >= 90000;
    const std::size_t minor = v9_style ? (v % 10000) / 100 : (v % 1000) / 100;
    return std::to_string(cudnn_major(v)) + "." + std::to_string(minor) + "." + std::to_string(v % 100);
}

const CudnnLoad& load_cudnn() { return library().load(); }

const CudnnApi& cudnn_api() { return library().api(); }

CudnnLoad try_load_cudnn_from(const std::string& dir) { return library().try_load_from(dir); }

}  // namespace gpulab::cuda

namespace gpulab::gpu {

core::Availability check_cudnn_library(const std::string& dir) {
    const cuda::CudnnLoad l = cuda::try_load_cudnn_from(dir);
    if (!l.reason.empty()) return {false, l.reason};
    return {true, l.version};
}

}  // namespace gpulab::gpu
