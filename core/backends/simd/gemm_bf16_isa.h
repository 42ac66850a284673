// The BF16 kernels of gemm_bf16.h, one per instruction that multiplies BF16 numbers: AVX512_BF16's
// VDPBF16PS (gemm_bf16_avx512bf16.cpp) and AMX's TDPBF16PS (gemm_bf16_amx.cpp). nullptr when this
// build's compiler did not produce one; gemm_bf16.cpp asks the CPU (and, for AMX, Linux) first.
#pragma once

#include <cstdint>

namespace gpulab::cpu::bf16_detail {

struct Bf16Kernel {
    // C = round_bf16(A) x round_bf16(B), FP32 sums, dense row-major, threaded on ThreadPool::shared().
    void (*gemm)(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k);
    // out[i] = core::bf16_bits(in[i]), 16 at a time (nullptr: the kernel only multiplies).
    void (*round_bits)(const float* in, std::uint16_t* out, std::int64_t count);
};

const Bf16Kernel* avx512bf16_kernel();
const Bf16Kernel* amx_kernel();
// Asks Linux, once per process, for AMX's tile state (arch_prctl ARCH_REQ_XCOMP_PERM); false where it
// refused or this build has no AMX kernel. Call only on a CPU with AMX.
bool tiles_permitted();

}  // namespace gpulab::cpu::bf16_detail
