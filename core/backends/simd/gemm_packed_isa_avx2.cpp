// The packed FP32 product and the ladder's loop rungs for AVX2 + FMA: a 4 x 24 micro-tile (12 of the
// 16 ymm registers accumulate). core/CMakeLists.txt compiles this file with -mavx2 -mfma;
// gemm_packed.cpp calls it only on a CPU that has both (cpu::best_simd_isa, GPULAB_ISA=avx2).
#include "gemm_packed_isa.h"

#if defined(__AVX2__) && defined(__FMA__)
#define GPULAB_PACKED_VEC_FLOATS 8
#define GPULAB_PACKED_VECS 3
#define GPULAB_PACKED_MR 4
#include "gemm_packed_impl.h"
#include "gemm_rungs_impl.h"

namespace gpulab::cpu::packed_detail {
const PackedKernel* avx2_packed() {
    // mc x kc of A (336 KiB) in L2 (512 KiB and more on AVX2 cores since Zen 2 and Ice Lake); kc x nc of
    // B (8 MiB) in L3. kc = 512, not BLIS's Haswell 256: 0.84-0.85x oneDNN at 2048^3 on one core with
    // 256 and 0.92-1.02x with 512 (fewer passes over C).
    static const PackedKernel k{"AVX2+FMA", kMr, kNr, 512, 168, 4080, &pack_a, &pack_b, &macro_kernel,
                                &naive_loops, &loop_order, &cache_blocked, &fma_burst};
    return &k;
}
}  // namespace gpulab::cpu::packed_detail
#else
namespace gpulab::cpu::packed_detail {
const PackedKernel* avx2_packed() { return nullptr; }
}  // namespace gpulab::cpu::packed_detail
#endif
