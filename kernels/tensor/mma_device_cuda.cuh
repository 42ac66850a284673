// The tensor-core instruction for nvcc: mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
// as inline PTX, the twin of the simulator's version in sim/sim_device_env.h. Include after
// cuda/cuda_device_env.cuh and before mma_kernels.cuh, in a .cu file.
//
// Operands as the PTX ISA lists them for this shape: d = 4 .f32, a = 4 .b32 (eight 16-bit
// elements), b = 2 .b32 (four), c = 4 .f32 (sections "Warp Level Matrix Multiply-Accumulate
// Instructions: mma" and "Matrix Fragments for mma.m16n8k16 with floating point type"). The
// instruction exists for .f16 and .bf16 inputs on sm_80 and newer; the launcher (mma_gemm.cu)
// refuses older GPUs with a sentence before any launch, and for them this compiles to a trap.
// Not run on a GPU yet: docs/gpu-verification.md lists it as unverified.
#pragma once

#include <cstdint>

#include "mma_fragment.h"

namespace gpulab::kern {

template <MmaInput In>
__device__ __forceinline__ void mma_sync_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2],
                                                  const float (&c)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // Copies: `d` and `c` are the same array in the kernel (acc = A x B + acc), and the asm below
    // must see its inputs as values, not as registers it is writing.
    const float c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3];
    if constexpr (In == MmaInput::Fp16) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
            : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c0), "f"(c1), "f"(c2), "f"(c3));
    }
#else
    (void)d;
    (void)a;
    (void)b;
    (void)c;
    __trap();  // unreachable: the launcher refuses GPUs older than compute capability 8.0
#endif
}

}  // namespace gpulab::kern
