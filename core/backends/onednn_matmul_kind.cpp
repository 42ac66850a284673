// What oneDNN's BF16 matmul kernel is, from its name (see cpu_onednn_matmul.h): shared by the real
// backend and the stand-in. Verified by tests/test_gemm_bf16.cpp.
#include <string>

#include "cpu_onednn_matmul.h"

namespace gpulab::cpu {

bool onednn_bf16_native(const std::string& implementation) {
    return implementation.find("amx") != std::string::npos || implementation.find("bf16") != std::string::npos;
}

std::string onednn_bf16_kind(const std::string& implementation) {
    if (implementation.find("amx") != std::string::npos) return "native: AMX tiles (TDPBF16PS)";
    if (implementation.find("bf16") != std::string::npos) return "native: VDPBF16PS (AVX512_BF16)";
    return "emulated: no BF16 instruction in " + implementation + ", BF16 widened to FP32";
}

}  // namespace gpulab::cpu
