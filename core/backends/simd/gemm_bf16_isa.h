// The BF16 kernel of gemm_bf16.h, one per instruction set that has BF16 arithmetic: today only
// AVX512_BF16 (gemm_bf16_avx512bf16.cpp). nullptr when this build's compiler did not produce it;
// gemm_bf16.cpp asks the CPU before calling it.
#pragma once

#include <cstdint>

namespace gpulab::cpu::bf16_detail {

struct Bf16Kernel {
    // C = round_bf16(A) x round_bf16(B), FP32 sums, dense row-major, threaded on ThreadPool::shared().
    void (*gemm)(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k);
    // out[i] = core::bf16_bits(in[i]), 16 at a time.
    void (*round_bits)(const float* in, std::uint16_t* out, std::int64_t count);
};

const Bf16Kernel* avx512bf16_kernel();

}  // namespace gpulab::cpu::bf16_detail
