// The library-independent steps of runtime_library.h: where to look, dlopen, the version check and
// dlsym of every entry point, each failure as one sentence. Checked against dlopen(3)/dlsym(3)
// (docs/gpu-verification.md); verified through the cuDNN and cuBLAS loader tests.
#include "runtime_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>

#include "cuda/cuda_check.cuh"
#include "io/file_io.h"

namespace gpulab::cuda::runtime_library_detail {

namespace {

std::string dl_error() {
    const char* e = dlerror();
    return e != nullptr ? e : "unknown dlopen error";
}

// "... or set GPULAB_CUDNN_DIR to the folder that holds it": the end of every sentence that a
// student can act on.
std::string remedy(const RuntimeLibrarySpec& spec) {
    return spec.fix + ", or set " + spec.dir_env + " to the folder that holds it";
}

// The first few names and a count: a library lacking everything would otherwise fill the screen.
std::string name_list(const std::vector<std::string>& names) {
    constexpr std::size_t kShown = 3;
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < kShown; ++i) out += (i == 0 ? "" : ", ") + names[i];
    if (names.size() > kShown) out += " and " + std::to_string(names.size() - kShown) + " more";
    return out;
}

// dlsym's address copied into a function-pointer variable, the form dlsym(3) itself shows
// (`*(void **) (&cosine) = dlsym(handle, "cos")`), written as a memcpy that C++ allows.
static_assert(sizeof(void*) == sizeof(void (*)()), "POSIX: function and data pointers have one size");
void store(const RuntimeSymbol& s, void* address) { std::memcpy(s.slot, &address, sizeof address); }

}  // namespace

std::vector<std::string> search_list(const RuntimeLibrarySpec& spec) {
    if (const char* dir = std::getenv(spec.dir_env.c_str()); dir != nullptr && dir[0] != '\0') {
        return {std::string(dir) + "/" + spec.soname};
    }
    std::vector<std::string> list{spec.soname};
    for (const std::string& d : spec.fallback_dirs) list.push_back(d + "/" + spec.soname);
    return list;
}

namespace {

// Steps 3 and 4 on one open library: "" when it will do (every slot filled), else why not (every
// slot cleared).
std::string judge(const RuntimeLibrarySpec& spec, const std::vector<RuntimeSymbol>& table, Opened& out) {
    std::string reason;
    if (void* version_fn = dlsym(out.handle, spec.version_symbol.c_str()); version_fn == nullptr) {
        reason = out.path + " has no " + spec.version_symbol + ": not a " + spec.name + " library; " + remedy(spec);
    } else if (const std::string why = spec.check_version(version_fn, out.version); !why.empty()) {
        reason = out.path + " " + why + ": " + remedy(spec);
    } else if (const std::string build = spec.check_build ? spec.check_build(out.handle) : ""; !build.empty()) {
        reason = out.path + " " + build + ": " + remedy(spec);
    } else {
        std::vector<std::string> missing;
        for (const RuntimeSymbol& s : table) {
            void* address = dlsym(out.handle, s.name);
            if (address == nullptr) missing.push_back(s.name);
            store(s, address);
        }
        if (!missing.empty()) reason = out.path + " lacks " + name_list(missing) + ", which gpulab calls: " + remedy(spec);
    }
    if (!reason.empty())
        for (const RuntimeSymbol& s : table) store(s, nullptr);
    return reason;
}

}  // namespace

Opened open_library(const RuntimeLibrarySpec& spec, const std::vector<std::string>& candidates,
                    const std::vector<RuntimeSymbol>& table) {
    std::string first_error, first_refusal;
    for (const std::string& c : candidates) {
        // A path (from GPULAB_CUDNN_DIR and the like) that is a FIFO or a device is refused before
        // dlopen, which would block on a FIFO or read a device without end (issue 31, item 2).
        if (c.find('/') != std::string::npos) {
            if (const std::string why = core::special_file_reason(c); !why.empty()) {
                if (first_error.empty()) first_error = c + " " + why + "; gpulab loads only regular files";
                continue;
            }
        }
        dlerror();
        Opened out;
        out.handle = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (out.handle == nullptr) {
            if (first_error.empty()) first_error = dl_error();
            continue;
        }
        out.path = c;
        const std::string why = judge(spec, table, out);
        if (why.empty()) return out;
        // Refused (another version or build): the next candidate may be the right one.
        if (first_refusal.empty()) first_refusal = why;
        close_library(out.handle);
    }
    Opened none;
    if (!first_refusal.empty()) {
        none.reason = first_refusal;
        return none;
    }
    // The loader's own words only when they add something to "not found": a file that is there but
    // does not load (not a library, a missing dependency of its own).
    const bool plain_absence = first_error.find("No such file or directory") != std::string::npos;
    none.reason = spec.soname + (plain_absence ? " not found" : " could not be loaded (" + first_error + ")") +
                  (spec.absence_hint ? spec.absence_hint(candidates) : "") + ": " + remedy(spec);
    return none;
}

void close_library(void* handle) {
    if (handle != nullptr) dlclose(handle);
}

void throw_unavailable(const RuntimeLibrarySpec& spec, const std::string& reason) {
    throw CudaError(spec.name + " is not available: " + reason);
}

}  // namespace gpulab::cuda::runtime_library_detail
