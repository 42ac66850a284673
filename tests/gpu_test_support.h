// What every test of the "gpu" suite needs first: whether a CUDA device can run it, with the
// skip line CTest turns into "skipped" (tests/CMakeLists.txt sets SKIP_REGULAR_EXPRESSION), and
// a backend looked up by name. Shared by tests/test_gpu_*.cpp.
//
// Each correctness test body there runs twice: on cuda-sim (the same kernel source on the SIMT
// simulator; every machine, never skipped) and on cuda-kernel (a CUDA device, else skipped).
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>
#include <string_view>

#include "backends/backend.h"
#include "gpu_backends.h"

namespace gpulab::testing {

// Prints "SKIPPED: CUDA not compiled in" or "SKIPPED: no CUDA device (<probe reason, verbatim>)"
// and returns false when the GPU tests cannot run here. With GPULAB_REQUIRE_GPU=1 (make gpu-check,
// on a computer with a GPU) that is a failure instead: a GPU present but unusable must not pass
// as "skipped".
inline bool gpu_ready() {
    const gpu::GpuProbe& p = gpu::probe();
    const char* require = std::getenv("GPULAB_REQUIRE_GPU");
    const bool required = require != nullptr && std::string_view(require) == "1";
    if (!p.compiled_in) {
        if (required) FAIL_CHECK("GPULAB_REQUIRE_GPU=1 but CUDA is not compiled in");
        std::cout << "SKIPPED: CUDA not compiled in\n";
        return false;
    }
    if (!p.device_ok) {
        if (required) FAIL_CHECK("GPULAB_REQUIRE_GPU=1 but no CUDA device: " << p.reason);
        std::cout << "SKIPPED: no CUDA device (" << p.reason << ")\n";
        return false;
    }
    return true;
}

// cuda-sim and cuda-sim-naive: the kernels on the simulator, with no device memory to show.
inline bool is_simulated(const core::Backend& b) { return b.name().rfind("cuda-sim", 0) == 0; }

inline core::Backend* find_backend(core::BackendList& list, std::string_view name) {
    for (auto& b : list)
        if (b->name() == name) return b.get();
    return nullptr;
}

}  // namespace gpulab::testing
