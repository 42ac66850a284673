// The packed FP32 product and the ladder's loop rungs for AVX2 + FMA: a 6 x 16 micro-tile (12 of the
// 16 ymm registers accumulate). core/CMakeLists.txt compiles this file with -mavx2 -mfma;
// gemm_packed.cpp calls it only on a CPU that has both (cpu::best_simd_isa, GPULAB_ISA=avx2).
#include "gemm_packed_isa.h"

#if defined(__AVX2__) && defined(__FMA__)
#define GPULAB_PACKED_VEC_FLOATS 8
#define GPULAB_PACKED_VECS 2
#define GPULAB_PACKED_MR 6
#include "gemm_packed_impl.h"
#include "gemm_rungs_impl.h"

namespace gpulab::cpu::packed_detail {
const PackedKernel* avx2_packed() {
    // kc x NR of B (16 KiB) in L1; mc x kc of A (168 KiB) fits the 256 KiB L2 of older AVX2 cores;
    // kc x nc of B (4 MiB) in L3. BLIS's Haswell sizes.
    static const PackedKernel k{"AVX2+FMA", kMr, kNr, 256, 168, 4080, &pack_a, &pack_b, &macro_kernel,
                                &naive_loops, &loop_order, &cache_blocked, &fma_burst};
    return &k;
}
}  // namespace gpulab::cpu::packed_detail
#else
namespace gpulab::cpu::packed_detail {
const PackedKernel* avx2_packed() { return nullptr; }
}  // namespace gpulab::cpu::packed_detail
#endif
