// The packed FP32 product and the ladder's loop rungs for any x86-64 (SSE2, no FMA: a multiply and an
// add) or other CPU: a 6 x 8 micro-tile. See gemm_packed_impl.h.
#include "gemm_packed_isa.h"

#define GPULAB_PACKED_VEC_FLOATS 4
#define GPULAB_PACKED_VECS 2
#define GPULAB_PACKED_MR 6
#include "gemm_packed_impl.h"
#include "gemm_rungs_impl.h"

namespace gpulab::cpu::packed_detail {
const PackedKernel* baseline_packed() {
    static const PackedKernel k{"SSE2", kMr, kNr, 256, 120, 4096, &pack_a, &pack_b, &macro_kernel,
                                &naive_loops, &loop_order, &cache_blocked, &fma_burst};
    return &k;
}
}  // namespace gpulab::cpu::packed_detail
