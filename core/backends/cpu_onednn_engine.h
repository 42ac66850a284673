// The one oneDNN CPU engine of the process, shared by cpu-onednn's eltwise and convolution
// primitives (cpu_onednn.cpp) and its matrix product (cpu_onednn_matmul.cpp), so GPULAB_ISA's cap
// on oneDNN is set once, before its first JIT. Included only by files compiled with oneDNN
// (core/CMakeLists.txt adds them when it finds the library). Verified through tests/test_cpu_backends.cpp
// and tests/test_gemm_bf16.cpp.
#pragma once

#include <optional>
#include <string>

#include <dnnl.hpp>

namespace gpulab::cpu::onednn_detail {

struct Engine {
    std::optional<dnnl::engine> engine;  // empty when it failed to start
    std::string failure;
    std::string isa_cap;  // "capped to AVX2 by GPULAB_ISA=avx2", or ""
};

// Created on first use, after capping oneDNN's instruction set to GPULAB_ISA's.
const Engine& cpu_engine();
// "2.6.3"
std::string version_string();
// "oneDNN: <what> (status N)"
std::string error_text(const dnnl::error& e);

}  // namespace gpulab::cpu::onednn_detail
