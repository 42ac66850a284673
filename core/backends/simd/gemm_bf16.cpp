// Picks our BF16 kernel for this CPU and says why when there is none (see gemm_bf16.h); the FP32
// product it is compared with, on the same blocks and threads.
// Verified by tests/test_gemm_bf16.cpp.
#include "gemm_bf16.h"

#include <algorithm>

#include "gemm_bf16_isa.h"
#include "ops/fp_formats.h"
#include "runtime/thread_pool.h"
#include "train_gemm.h"

namespace gpulab::cpu {

namespace {

// Why BF16 is not faster without the instruction: the sentence every "no" ends with.
constexpr const char* kWhySlower =
    "without it there is no BF16 arithmetic: BF16 numbers would have to be widened to FP32 and "
    "multiplied with the same FP32 FMAs, so a BF16 product does the FP32 work plus the conversions and is "
    "slower, not faster (BF16 then only halves the memory the matrices take)";

const bf16_detail::Bf16Kernel* usable_kernel() {
    static const bf16_detail::Bf16Kernel* k =
        gemm_bf16_availability().ok ? bf16_detail::avx512bf16_kernel() : nullptr;
    return k;
}

}  // namespace

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
    return false;
#endif
}

bool cpu_has_amx_bf16() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("amx-bf16");
#else
    return false;
#endif
}

core::Availability gemm_bf16_availability_for(bool built, bool cpu_has_bf16, const IsaChoice& choice) {
    if (!built)
        return {false, std::string("this build of gpulab has no AVX512_BF16 kernel (its compiler could not produce "
                                   "VDPBF16PS code), so BF16 products run nowhere natively here; ") +
                           kWhySlower};
    if (!cpu_has_bf16)
        return {false, std::string("this CPU has no AVX512_BF16, so no VDPBF16PS instruction (two BF16 products "
                                   "summed into each FP32 lane, twice the multiply-adds of an FP32 FMA); ") +
                           kWhySlower};
    if (choice.forced && choice.isa != SimdIsa::Avx512)
        return {false, "GPULAB_ISA=" + choice.request + " caps this run at " + std::string(simd_isa_name(choice.isa)) +
                           ", which has no AVX512_BF16 (VDPBF16PS is an AVX-512 instruction); " + kWhySlower};
    return {true, gemm_bf16_path()};
}

core::Availability gemm_bf16_availability() {
    static const core::Availability a =
        gemm_bf16_availability_for(bf16_detail::avx512bf16_kernel() != nullptr, cpu_has_avx512_bf16(), isa_choice());
    return a;
}

const char* gemm_bf16_path() { return "native VDPBF16PS (AVX512_BF16)"; }

bool gemm_bf16(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
    const bf16_detail::Bf16Kernel* kernel = usable_kernel();
    if (kernel == nullptr) return false;
    kernel->gemm(a, b, c, m, n, k);
    return true;
}

void round_to_bf16_bits(const float* in, uint16_t* out, int64_t count) {
    const bf16_detail::Bf16Kernel* kernel = usable_kernel();
    if (kernel != nullptr) {
        kernel->round_bits(in, out, count);
        return;
    }
    for (int64_t i = 0; i < count; ++i) out[i] = core::bf16_bits(in[i]);
}

void gemm_fp32_parallel(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
    if (m <= 0 || n <= 0) return;
    // The BF16 kernel's task shape: 96 rows x 256 columns of C per task.
    constexpr int64_t kTaskRows = 96, kTaskCols = 256;
    const int64_t row_tasks = (m + kTaskRows - 1) / kTaskRows, col_tasks = (n + kTaskCols - 1) / kTaskCols;
    ThreadPool::shared().parallel_for(
        row_tasks * col_tasks, [&](int64_t begin, int64_t end) {
            for (int64_t task = begin; task < end; ++task) {
                const int64_t i = (task / col_tasks) * kTaskRows, j = (task % col_tasks) * kTaskCols;
                const int64_t rows = std::min(kTaskRows, m - i), cols = std::min(kTaskCols, n - j);
                if (k <= 0) {
                    for (int64_t r = 0; r < rows; ++r) std::fill(c + (i + r) * n + j, c + (i + r) * n + j + cols, 0.0f);
                    continue;
                }
                train::gemm(rows, cols, k, a + i * k, k, 1, b + j, n, c + i * n + j, n, false);
            }
        },
        1);
}

}  // namespace gpulab::cpu
