// Picks our BF16 kernels for this CPU (AMX tiles, VDPBF16PS) and says why when one cannot run (see
// gemm_bf16.h); the FP32 product they are compared with is the packed one (gemm_packed.h).
// Verified by tests/test_gemm_bf16.cpp.
#include "gemm_bf16.h"

#include <cstdlib>
#include <string_view>

#include "gemm_bf16_isa.h"
#include "gemm_packed.h"
#include "ops/fp_formats.h"

namespace gpulab::cpu {

namespace {

// Why BF16 is not faster without the instruction: the sentence every "no" ends with.
constexpr const char* kWhySlower =
    "without it there is no BF16 arithmetic: BF16 numbers would have to be widened to FP32 and "
    "multiplied with the same FP32 FMAs, so a BF16 product does the FP32 work plus the conversions and is "
    "slower, not faster (BF16 then only halves the memory the matrices take)";

const bf16_detail::Bf16Kernel* usable_kernel(Bf16Instruction which) {
    static const bf16_detail::Bf16Kernel* const amx =
        gemm_bf16_availability(Bf16Instruction::Amx).ok ? bf16_detail::amx_kernel() : nullptr;
    static const bf16_detail::Bf16Kernel* const vdp =
        gemm_bf16_availability(Bf16Instruction::Vdpbf16ps).ok ? bf16_detail::avx512bf16_kernel() : nullptr;
    return which == Bf16Instruction::Amx ? amx : vdp;
}

}  // namespace

// GPULAB_CPU_HIDE=amx,avx512bf16 makes this process behave as a CPU without those units (an AMD
// EPYC has AVX-512 but no AMX): the stand-in the test suite runs under, so a test that only passes
// where the tiles exist shows up on a machine that has them (issue 38). Never makes a CPU richer.
bool cpu_flag_hidden(std::string_view flag) {
    const char* hide = std::getenv("GPULAB_CPU_HIDE");
    if (hide == nullptr) return false;
    std::string_view list(hide);
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        if (list.substr(0, comma) == flag) return true;
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

bool cpu_has_avx512_bf16() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (cpu_flag_hidden("avx512bf16")) return false;
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16");
#else
    return false;
#endif
}

bool cpu_has_amx_bf16() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (cpu_flag_hidden("amx")) return false;
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
    // A cap chosen with GPULAB_ISA is the reason before the CPU's own flags: the same request gives
    // the same sentence on every CPU (an Intel Xeon, an AMD EPYC), so what a student reads and what
    // the tests expect do not depend on the machine.
    if (choice.forced && choice.isa != SimdIsa::Avx512)
        return {false, "GPULAB_ISA=" + choice.request + " caps this run at " + std::string(simd_isa_name(choice.isa)) +
                           ", which has no AVX512_BF16 (VDPBF16PS is an AVX-512 instruction); " + kWhySlower};
    if (!cpu_has_bf16)
        return {false, std::string("this CPU has no AVX512_BF16, so no VDPBF16PS instruction (two BF16 products "
                                   "summed into each FP32 lane, twice the multiply-adds of an FP32 FMA); ") +
                           kWhySlower};
    return {true, gemm_bf16_path(Bf16Instruction::Vdpbf16ps)};
}

core::Availability gemm_amx_availability_for(bool built, bool cpu_has_amx, bool os_permits, const IsaChoice& choice) {
    if (!built)
        return {false, "this build of gpulab has no AMX kernel (its compiler could not produce tile instructions)"};
    // The cap first, as for VDPBF16PS above; the CPU's lack of tiles is added, not substituted.
    if (choice.forced && choice.isa != SimdIsa::Avx512)
        return {false, "GPULAB_ISA=" + choice.request + " caps this run at " + std::string(simd_isa_name(choice.isa)) +
                           ", so the AMX tiles are not used" + (cpu_has_amx ? "" : " (this CPU has none either)")};
    if (!cpu_has_amx)
        return {false, "this CPU has no AMX (the tile unit of Intel Xeons since Sapphire Rapids), so no TDPBF16PS: "
                       "the instruction that multiplies a 16 x 32 BF16 tile by a 32 x 16 one, 8,192 multiply-adds at once"};
    if (!os_permits)
        return {false, "this CPU has AMX, but Linux did not let gpulab use the tiles (arch_prctl "
                       "ARCH_REQ_XCOMP_PERM refused; Linux grants them from version 5.16)"};
    return {true, gemm_bf16_path(Bf16Instruction::Amx)};
}

core::Availability gemm_bf16_availability(Bf16Instruction which) {
    if (which == Bf16Instruction::Amx) {
        static const core::Availability a = [] {
            const bool built = bf16_detail::amx_kernel() != nullptr, cpu = cpu_has_amx_bf16();
            // Linux is asked only where the rest allows the tiles: the request changes the process.
            const core::Availability before = gemm_amx_availability_for(built, cpu, true, isa_choice());
            return before.ok ? gemm_amx_availability_for(built, cpu, bf16_detail::tiles_permitted(), isa_choice()) : before;
        }();
        return a;
    }
    static const core::Availability v =
        gemm_bf16_availability_for(bf16_detail::avx512bf16_kernel() != nullptr, cpu_has_avx512_bf16(), isa_choice());
    return v;
}

core::Availability gemm_bf16_availability() {
    const core::Availability amx = gemm_bf16_availability(Bf16Instruction::Amx);
    return amx.ok ? amx : gemm_bf16_availability(Bf16Instruction::Vdpbf16ps);
}

const char* gemm_bf16_path(Bf16Instruction which) {
    return which == Bf16Instruction::Amx ? "native AMX tiles (TDPBF16PS)" : "native VDPBF16PS (AVX512_BF16)";
}

bool gemm_bf16(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, Bf16Instruction which) {
    const bf16_detail::Bf16Kernel* kernel = usable_kernel(which);
    if (kernel == nullptr) return false;
    kernel->gemm(a, b, c, m, n, k);
    return true;
}

bool gemm_bf16(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
    return gemm_bf16(a, b, c, m, n, k,
                     gemm_bf16_availability(Bf16Instruction::Amx).ok ? Bf16Instruction::Amx : Bf16Instruction::Vdpbf16ps);
}

void round_to_bf16_bits(const float* in, uint16_t* out, int64_t count) {
    const bf16_detail::Bf16Kernel* kernel = usable_kernel(Bf16Instruction::Vdpbf16ps);
    if (kernel != nullptr) {
        kernel->round_bits(in, out, count);
        return;
    }
    for (int64_t i = 0; i < count; ++i) out[i] = core::bf16_bits(in[i]);
}

void gemm_fp32_parallel(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k) {
    gemm_packed(m, n, k, a, k, 1, b, n, c, n, false, true);
}

}  // namespace gpulab::cpu
