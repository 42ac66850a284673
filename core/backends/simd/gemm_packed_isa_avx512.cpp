// The packed FP32 product and the ladder's loop rungs for AVX-512: a 6 x 64 micro-tile (24 of the 32
// zmm registers accumulate). core/CMakeLists.txt compiles this file with -mavx512f -mfma;
// gemm_packed.cpp calls it only on a CPU that has AVX-512 (cpu::best_simd_isa).
#include "gemm_packed_isa.h"

#if defined(__AVX512F__) && defined(__FMA__)
#define GPULAB_PACKED_VEC_FLOATS 16
#define GPULAB_PACKED_VECS 4
#define GPULAB_PACKED_MR 6
#include "gemm_packed_impl.h"
#include "gemm_rungs_impl.h"

namespace gpulab::cpu::packed_detail {
const PackedKernel* avx512_packed() {
    // mc x kc of A (504 KiB) fits a 1-2 MiB L2 (AMD Zen 4: 1 MiB, Intel Sapphire Rapids: 2 MiB) while
    // the kc x NR micro-panels of B (96 KiB) pass; kc x nc of B (6 MiB) sits in L3. kc = 256 and 512
    // measured level with 384 on one core.
    static const PackedKernel k{"AVX-512", kMr, kNr, 384, 336, 4096, &pack_a, &pack_b, &macro_kernel,
                                &naive_loops, &loop_order, &cache_blocked, &fma_burst};
    return &k;
}
}  // namespace gpulab::cpu::packed_detail
#else
namespace gpulab::cpu::packed_detail {
const PackedKernel* avx512_packed() { return nullptr; }
}  // namespace gpulab::cpu::packed_detail
#endif
