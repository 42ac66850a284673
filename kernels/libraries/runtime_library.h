// One loader for the NVIDIA libraries gpulab opens at run time (dlopen) instead of linking: cuDNN
// (cudnn_library.h) and cuBLAS (cublas_library.h).
//
// Why at run time: a binary linked against libcudnn.so.9 or libcublas.so.13 does not even start on
// a machine without them, so one build could not serve a student with a bare NVIDIA driver, one
// with the libraries, and one without any GPU. Loaded when first used, the same binary starts
// everywhere and the backend that needs the library says, in one sentence, why it is unavailable.
//
// A user describes its library (RuntimeLibrarySpec) and lists its entry points as {symbol, slot};
// RuntimeLibrary<Api> then does the same steps for every library:
//   1. the search list: only $<dir_env>/<soname> when that variable is set; otherwise the bare soname
//      (the dynamic loader's own search: LD_LIBRARY_PATH, ld.so.cache), then each fallback folder;
//   2. dlopen(RTLD_NOW | RTLD_LOCAL) of each candidate in turn, or "<soname> not found: <fix>, or set
//      <dir_env> to the folder that holds it";
//   3. the version, read first: a library of another major version would not have the same
//      functions, so "reports cuDNN 8.9.7; gpulab needs cuDNN 9" says more than a list of absences;
//      then, where the spec asks, the build (a cuDNN 9 built for CUDA 12 loads CUDA 12's cuBLASLt);
//   4. dlsym of every entry point into its slot, or "<path> lacks <names>: <fix> ...";
//   a candidate refused at 3 or 4 is closed and the next one tried (ld.so.cache may name a build
//   for another CUDA ahead of the right one in a fallback folder); the first refusal's sentence is
//   the answer when none will do;
//   5. once per process (std::call_once), never unloaded; try_load_from(dir) for the tests, which
//      looks in exactly one folder, caches nothing and closes the library again.
//
// Verified by tests/test_cudnn_library.cpp (missing, not loadable, wrong major version, the real
// cuDNN 9) and tests/test_cudnn_train_plan.cpp (cuBLAS missing, the toolkit's cuBLAS 13).
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace gpulab::cuda {

// One entry point: its exported name and the address of the function-pointer variable that receives
// it (`&api.cudnnCreate`). Filled by copying dlsym's address into it, as dlsym(3) shows.
struct RuntimeSymbol {
    const char* name;
    void* slot;
};

// What the loader needs to know about one library.
struct RuntimeLibrarySpec {
    std::string name;                        // "cuDNN": in "cuDNN is not available: ..."
    std::string soname;                      // "libcudnn.so.9"
    std::string dir_env;                     // "GPULAB_CUDNN_DIR": when set, the only folder looked in
    std::vector<std::string> fallback_dirs;  // after the dynamic loader's own search, in order
    std::string fix;                         // "install cuDNN 9 for CUDA 13"
    // Required: the entry point that tells the version, and its judge: `check_version` receives its
    // address, sets `version` ("9.19.0") and returns why this version will not do, or "" if it will.
    std::string version_symbol;
    std::function<std::string(void* version_fn, std::string& version)> check_version;
    // Optional, after the version: given the open library, why this build will not do, or "".
    std::function<std::string(void* handle)> check_build;
    // Optional: words to add to "not found", given the candidates that were tried (cuDNN names
    // another major version lying where it looked).
    std::function<std::string(const std::vector<std::string>& tried)> absence_hint;
};

// The outcome of loading: `api` is null when the library cannot be used, and `reason` says why in
// one sentence; otherwise `path` is the file that was loaded and `version` what it reported.
template <class Api>
struct LibraryLoad {
    const Api* api = nullptr;
    std::string reason;
    std::string path;
    std::string version;
};

// The library-independent steps 1-4 (runtime_library.cpp).
namespace runtime_library_detail {
struct Opened {
    void* handle = nullptr;  // open and every slot filled, or null with `reason` set and slots cleared
    std::string reason;
    std::string path;
    std::string version;
};
std::vector<std::string> search_list(const RuntimeLibrarySpec& spec);
Opened open_library(const RuntimeLibrarySpec& spec, const std::vector<std::string>& candidates,
                    const std::vector<RuntimeSymbol>& table);
void close_library(void* handle);
[[noreturn]] void throw_unavailable(const RuntimeLibrarySpec& spec, const std::string& reason);
}  // namespace runtime_library_detail

// One library's loader. `table(api)` lists the slots of an Api struct (one per entry point, built
// with the user's X-macro). Make one per library, as a function-local static.
template <class Api>
class RuntimeLibrary {
  public:
    using Table = std::vector<RuntimeSymbol> (*)(Api&);

    RuntimeLibrary(RuntimeLibrarySpec spec, Table table) : spec_(std::move(spec)), table_(table) {}

    // Loads once per process (thread-safe) and returns the same result to every caller. Never
    // unloaded: cuDNN keeps its own sub-libraries and state for the life of the process.
    const LibraryLoad<Api>& load() {
        std::call_once(once_, [this] {
            const auto o =
                runtime_library_detail::open_library(spec_, runtime_library_detail::search_list(spec_), table_(api_));
            result_ = {o.handle != nullptr ? &api_ : nullptr, o.reason, o.path, o.version};
        });
        return result_;
    }

    // The loaded entry points; throws CudaError "<name> is not available: <reason>" when there are none.
    const Api& api() {
        const LibraryLoad<Api>& l = load();
        if (l.api == nullptr) runtime_library_detail::throw_unavailable(spec_, l.reason);
        return *l.api;
    }

    // From exactly `dir`, not cached, closed again: the "missing" and "wrong version" paths for the
    // tests. The returned api is null (it would dangle).
    LibraryLoad<Api> try_load_from(const std::string& dir) const {
        Api scratch;
        const auto o = runtime_library_detail::open_library(spec_, {dir + "/" + spec_.soname}, table_(scratch));
        runtime_library_detail::close_library(o.handle);
        return {nullptr, o.reason, o.path, o.version};
    }

  private:
    RuntimeLibrarySpec spec_;
    Table table_;
    Api api_;
    LibraryLoad<Api> result_;
    std::once_flag once_;
};

}  // namespace gpulab::cuda
