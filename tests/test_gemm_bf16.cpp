// Our BF16 matrix product (core/backends/simd/gemm_bf16.h) and oneDNN's (core/backends/cpu_onednn_matmul.h)
// against cpu-scalar's core::matmul_reduced({Bf16, Fp32}): the packer's rounding bit for bit, the sums
// within the bound FP32 accumulation predicts (the pairs of VDPBF16PS sum in another order), exact
// where every sum is exact; odd sizes and edges; each case for both kernels (AMX tiles, VDPBF16PS).
// Where the CPU lacks an instruction, the refusal sentence (and the kernel cases say SKIPPED).
// The speed workload's rows (core/workloads/tensor_speed.h).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "backends/cpu_onednn_matmul.h"
#include "backends/simd/gemm_bf16.h"
#include "backends/simd/simd_math.h"
#include "ops/mixed_matmul.h"
#include "ops/pseudo_random.h"
#include "workloads/tensor_speed.h"

using namespace gpulab;
using core::FpFormat;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

uint32_t bits(float x) {
    uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

float from_bits(uint32_t u) {
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

// The largest |C - exact| / bound, where exact is the FP64 sum of the BF16-rounded inputs and the bound
// is FP32 accumulation's (core::matmul_error_bound with unrounded "inputs": the rounding is in ra, rb).
double worst_ratio_to_bound(const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c,
                            int64_t m, int64_t n, int64_t k, FpFormat inputs) {
    std::vector<float> ra(a.size()), rb(b.size());
    for (std::size_t i = 0; i < a.size(); ++i) ra[i] = core::round_to(inputs, a[i]);
    for (std::size_t i = 0; i < b.size(); ++i) rb[i] = core::round_to(inputs, b[i]);
    double worst = 0.0;
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double exact = 0, sum_abs = 0, sum_inputs = 0;
            for (int64_t kk = 0; kk < k; ++kk) {
                const double x = ra[static_cast<std::size_t>(i * k + kk)], y = rb[static_cast<std::size_t>(kk * n + j)];
                exact += x * y;
                sum_abs += std::fabs(x * y);
                sum_inputs += std::fabs(x) + std::fabs(y);
            }
            const double bound = core::matmul_error_bound({FpFormat::Fp32, FpFormat::Fp32}, k, sum_abs, sum_inputs) +
                                 1.2 * static_cast<double>(k) * std::ldexp(sum_abs, -53);
            const double err = std::fabs(c[static_cast<std::size_t>(i * n + j)] - exact);
            worst = std::max(worst, err / bound);
        }
    }
    return worst;
}

using cpu::Bf16Instruction;
constexpr Bf16Instruction kInstructions[] = {Bf16Instruction::Amx, Bf16Instruction::Vdpbf16ps};

const char* name(Bf16Instruction which) { return which == Bf16Instruction::Amx ? "AMX" : "VDPBF16PS"; }

// The kernels that can run here; each one that cannot says why (SKIPPED) once per case.
std::vector<Bf16Instruction> runnable_kernels() {
    std::vector<Bf16Instruction> out;
    for (Bf16Instruction which : kInstructions) {
        const core::Availability av = cpu::gemm_bf16_availability(which);
        if (av.ok)
            out.push_back(which);
        else
            std::cout << "SKIPPED: our " << name(which) << " BF16 kernel cannot run here (" << av.reason << ")\n";
    }
    return out;
}

struct Shape {
    int64_t m, n, k;
};

// Odd sizes: k odd (a zero partner in the last pair), k past a block (VDPBF16PS: 256; AMX: 512), m and
// n past a tile (VDPBF16PS: 12 x 32; AMX: 32 x 32 blocks) and past a task (96 x 256; AMX 128 x 256),
// and the smallest product.
constexpr Shape kShapes[] = {{1, 1, 1},     {1, 1, 2},     {13, 37, 7},    {12, 32, 2},  {25, 33, 129},    {97, 65, 257},
                             {5, 300, 301}, {100, 17, 513}, {11, 31, 3}, {192, 288, 64}, {130, 260, 600}};

}  // namespace

TEST_SUITE("gemm_bf16") {
    TEST_CASE("the packer rounds like core round_to for every top half and the bottom halves that decide") {
        // Round to nearest even on the top 16 bits depends on the top half (its last bit) and whether the
        // bottom half is below, at or above 0x8000: every top half with each kind of bottom half.
        const uint32_t lows[] = {0x0000, 0x0001, 0x7FFF, 0x8000, 0x8001, 0xFFFF, 0x1234, 0xC000};
        std::vector<float> in;
        in.reserve(65536 * std::size(lows));
        for (uint32_t hi = 0; hi < 65536; ++hi)
            for (uint32_t lo : lows) in.push_back(from_bits(hi << 16 | lo));
        std::vector<uint16_t> out(in.size());
        cpu::round_to_bf16_bits(in.data(), out.data(), static_cast<int64_t>(in.size()));
        int64_t wrong = 0;
        for (std::size_t i = 0; i < in.size(); ++i) {
            if (out[i] != core::bf16_bits(in[i])) {
                if (wrong < 5)
                    MESSAGE("input bits " << bits(in[i]) << ": packer " << out[i] << ", core "
                                          << core::bf16_bits(in[i]));
                ++wrong;
            }
        }
        CHECK(wrong == 0);
        // Odd counts: the masked tail writes exactly `count` values.
        std::vector<uint16_t> tail(20, 0xABCD);
        cpu::round_to_bf16_bits(in.data(), tail.data(), 17);
        CHECK(tail[16] == core::bf16_bits(in[16]));
        CHECK(tail[17] == 0xABCD);
    }

    TEST_CASE("refused with a sentence when GPULAB_ISA caps below AVX-512 or the CPU lacks AVX512_BF16") {
        using cpu::SimdIsa;
        const std::vector<SimdIsa> all = {SimdIsa::Baseline, SimdIsa::Avx2Fma, SimdIsa::Avx512};
        const core::Availability capped =
            cpu::gemm_bf16_availability_for(true, true, cpu::resolve_isa_request("avx2", all));
        CHECK_FALSE(capped.ok);
        CHECK(contains(capped.reason, "GPULAB_ISA=avx2 caps this run at AVX2+FMA, which has no AVX512_BF16"));
        CHECK(contains(capped.reason, "slower, not faster"));
        const core::Availability capped_no_bf16 =
            cpu::gemm_bf16_availability_for(true, false, cpu::resolve_isa_request("avx2", all));
        CHECK(capped_no_bf16.reason == capped.reason);
        const core::Availability no_cpu =
            cpu::gemm_bf16_availability_for(true, false, cpu::resolve_isa_request("", all));
        CHECK_FALSE(no_cpu.ok);
        CHECK(contains(no_cpu.reason, "this CPU has no AVX512_BF16, so no VDPBF16PS instruction"));
        CHECK(contains(no_cpu.reason, "widened to FP32"));
        const core::Availability no_build =
            cpu::gemm_bf16_availability_for(false, true, cpu::resolve_isa_request("", all));
        CHECK_FALSE(no_build.ok);
        CHECK(contains(no_build.reason, "no AVX512_BF16 kernel"));
        const core::Availability yes =
            cpu::gemm_bf16_availability_for(true, true, cpu::resolve_isa_request("avx512", all));
        CHECK(yes.ok);
        CHECK(yes.reason == cpu::gemm_bf16_path(Bf16Instruction::Vdpbf16ps));
        // What this machine says agrees with what its CPU has (when GPULAB_ISA is not set).
        if (!cpu::isa_choice().forced)
            CHECK(cpu::gemm_bf16_availability(Bf16Instruction::Vdpbf16ps).ok == cpu::cpu_has_avx512_bf16());
    }

    TEST_CASE("the AMX kernel refused with a sentence - no AMX - capped ISA - Linux refusing the tiles") {
        using cpu::SimdIsa;
        const std::vector<SimdIsa> all = {SimdIsa::Baseline, SimdIsa::Avx2Fma, SimdIsa::Avx512};
        const auto none = cpu::resolve_isa_request("", all);
        const core::Availability no_cpu = cpu::gemm_amx_availability_for(true, false, true, none);
        CHECK_FALSE(no_cpu.ok);
        CHECK(contains(no_cpu.reason, "this CPU has no AMX"));
        CHECK(contains(no_cpu.reason, "8,192 multiply-adds"));
        const core::Availability capped =
            cpu::gemm_amx_availability_for(true, true, true, cpu::resolve_isa_request("avx2", all));
        CHECK_FALSE(capped.ok);
        CHECK(contains(capped.reason, "GPULAB_ISA=avx2 caps this run at AVX2+FMA, so the AMX tiles are not used"));
        // The cap's sentence does not depend on the CPU (an AMD EPYC has no AMX): the same words,
        // with the missing tiles added.
        const core::Availability capped_amd =
            cpu::gemm_amx_availability_for(true, false, true, cpu::resolve_isa_request("avx2", all));
        CHECK(contains(capped_amd.reason, "GPULAB_ISA=avx2 caps this run at AVX2+FMA, so the AMX tiles are not used"));
        CHECK(contains(capped_amd.reason, "this CPU has none either"));
        const core::Availability refused = cpu::gemm_amx_availability_for(true, true, false, none);
        CHECK_FALSE(refused.ok);
        CHECK(contains(refused.reason, "Linux did not let gpulab use the tiles"));
        CHECK_FALSE(cpu::gemm_amx_availability_for(false, true, true, none).ok);
        const core::Availability yes =
            cpu::gemm_amx_availability_for(true, true, true, cpu::resolve_isa_request("avx512", all));
        CHECK(yes.ok);
        CHECK(yes.reason == cpu::gemm_bf16_path(Bf16Instruction::Amx));
        // The kernel without a choice: AMX where it runs, else VDPBF16PS, else VDPBF16PS's reason.
        const core::Availability amx = cpu::gemm_bf16_availability(Bf16Instruction::Amx);
        const core::Availability vdp = cpu::gemm_bf16_availability(Bf16Instruction::Vdpbf16ps);
        CHECK(cpu::gemm_bf16_availability().reason == (amx.ok ? amx.reason : vdp.reason));
        if (!cpu::isa_choice().forced && !cpu::cpu_has_amx_bf16()) CHECK_FALSE(amx.ok);
    }

    TEST_CASE("within the FP32 sum's bound of the reference at odd sizes - k odd and past a block - m and n edges") {
        for (const Bf16Instruction which : runnable_kernels()) {
            CAPTURE(name(which));
            for (const Shape& s : kShapes) {
                CAPTURE(s.m);
                CAPTURE(s.n);
                CAPTURE(s.k);
                const std::vector<float> a = core::uniform_signed_floats(s.m * s.k, 11 + s.k),
                                         b = core::uniform_signed_floats(s.k * s.n, 29 + s.n);
                std::vector<float> c(static_cast<std::size_t>(s.m * s.n), NAN), ref(c.size());
                REQUIRE(cpu::gemm_bf16(a.data(), b.data(), c.data(), s.m, s.n, s.k, which));
                core::matmul_reduced(a.data(), b.data(), ref.data(), s.m, s.n, s.k, {FpFormat::Bf16, FpFormat::Fp32});
                CHECK(worst_ratio_to_bound(a, b, c, s.m, s.n, s.k, FpFormat::Bf16) <= 1.0);
                // The reference is within the same bound of the exact sum, so the two within twice it.
                CHECK(worst_ratio_to_bound(a, b, ref, s.m, s.n, s.k, FpFormat::Bf16) <= 1.0);
                int64_t far = 0;
                for (std::size_t i = 0; i < c.size(); ++i) {
                    const double tol = 2.0 * core::matmul_error_bound({FpFormat::Fp32, FpFormat::Fp32}, s.k,
                                                                      double(s.k), 2.0 * double(s.k));
                    if (!(std::fabs(c[i] - ref[i]) <= tol)) ++far;
                }
                CHECK(far == 0);
            }
        }
    }

    TEST_CASE("bit for bit equal to matmul_reduced where every sum is exact - small integers") {
        for (const Bf16Instruction which : runnable_kernels()) {
            CAPTURE(name(which));
            for (const Shape& s : kShapes) {
                CAPTURE(s.k);
                std::vector<float> a = core::uniform_signed_floats(s.m * s.k, 3),
                                   b = core::uniform_signed_floats(s.k * s.n, 5);
                for (float& x : a) x = std::round(x * 8.0f);  // -8 .. 8: products <= 64, sums < 2^24: exact
                for (float& x : b) x = std::round(x * 8.0f);
                std::vector<float> c(static_cast<std::size_t>(s.m * s.n)), ref(c.size());
                REQUIRE(cpu::gemm_bf16(a.data(), b.data(), c.data(), s.m, s.n, s.k, which));
                core::matmul_reduced(a.data(), b.data(), ref.data(), s.m, s.n, s.k, {FpFormat::Bf16, FpFormat::Fp32});
                CHECK(std::memcmp(c.data(), ref.data(), c.size() * sizeof(float)) == 0);
            }
        }
    }

    TEST_CASE("the identity picks out B exactly as core rounds it - ties to even included") {
        for (const Bf16Instruction which : runnable_kernels()) {
            CAPTURE(name(which));
            const int64_t k = 37, n = 45;
            std::vector<float> id(static_cast<std::size_t>(k * k), 0.0f);
            for (int64_t i = 0; i < k; ++i) id[static_cast<std::size_t>(i * k + i)] = 1.0f;
            std::vector<float> b = core::uniform_signed_floats(k * n, 77);
            // Exact ties between two BF16 numbers, both ways (1 + 2^-8 goes down to 1, 1 + 3 * 2^-8 up),
            // and magnitudes from 2^-80 to 2^95.
            b[0] = 1.0f + std::ldexp(1.0f, -8);
            b[1] = 1.0f + 3.0f * std::ldexp(1.0f, -8);
            b[2] = -b[1];
            for (int64_t i = 4; i < 40; ++i)
                b[static_cast<std::size_t>(i)] *= std::ldexp(1.0f, static_cast<int>(i * 5 - 100));
            std::vector<float> c(static_cast<std::size_t>(k * n));
            REQUIRE(cpu::gemm_bf16(id.data(), b.data(), c.data(), k, n, k, which));
            int64_t wrong = 0;
            for (std::size_t i = 0; i < c.size(); ++i) wrong += bits(c[i]) == bits(core::round_bf16(b[i])) ? 0 : 1;
            CHECK(wrong == 0);
            CHECK(c[0] == 1.0f);
            CHECK(c[1] == 1.0f + std::ldexp(1.0f, -6));
            // The largest FP32 is past BF16's largest finite number by more than half a step: infinity.
            const float one = 1.0f, big = 3.4028234e38f;
            float out = 0.0f;
            REQUIRE(cpu::gemm_bf16(&one, &big, &out, 1, 1, 1, which));
            CHECK(std::isinf(out));
            CHECK(std::isinf(core::round_bf16(big)));
        }
    }

    TEST_CASE("both instructions treat BF16 subnormals as zero - the reference keeps them") {
        for (const Bf16Instruction which : runnable_kernels()) {
            CAPTURE(name(which));
            const float tiny = std::ldexp(1.0f, -130);  // a BF16 subnormal (below 2^-126)
            const float one[1] = {1.0f}, sub[1] = {tiny};
            float only = -1.0f, only_ref = -1.0f;
            REQUIRE(cpu::gemm_bf16(one, sub, &only, 1, 1, 1, which));
            core::matmul_reduced(one, sub, &only_ref, 1, 1, 1, {FpFormat::Bf16, FpFormat::Fp32});
            CHECK(only_ref == tiny);
            CHECK(only == 0.0f);  // DAZ: the instructions' fixed behaviour, said in gemm_bf16.h
        }
    }

    TEST_CASE("k of 0 gives zeros - m or n of 0 writes nothing") {
        for (const Bf16Instruction which : runnable_kernels()) {
            CAPTURE(name(which));
            std::vector<float> c(6, 7.0f);
            REQUIRE(cpu::gemm_bf16(nullptr, nullptr, c.data(), 2, 3, 0, which));
            for (float x : c) CHECK(x == 0.0f);
            float untouched = 7.0f;
            REQUIRE(cpu::gemm_bf16(nullptr, nullptr, &untouched, 0, 1, 4, which));
            CHECK(untouched == 7.0f);
        }
    }

    TEST_CASE("the FP32 product on the pool matches the reference within its bound") {
        for (const Shape& s : kShapes) {
            CAPTURE(s.k);
            const std::vector<float> a = core::uniform_signed_floats(s.m * s.k, 41),
                                     b = core::uniform_signed_floats(s.k * s.n, 43);
            std::vector<float> c(static_cast<std::size_t>(s.m * s.n), NAN);
            cpu::gemm_fp32_parallel(a.data(), b.data(), c.data(), s.m, s.n, s.k);
            CHECK(worst_ratio_to_bound(a, b, c, s.m, s.n, s.k, FpFormat::Fp32) <= 1.0);
        }
    }

    TEST_CASE("oneDNN BF16 and FP32 matmul within the bound of the reference - its path named") {
        for (FpFormat f : {FpFormat::Fp32, FpFormat::Bf16}) {
            for (const Shape& s : {Shape{13, 37, 7}, Shape{97, 65, 257}, Shape{64, 64, 64}}) {
                CAPTURE(s.k);
                cpu::OnednnMatmul mm(f, s.m, s.n, s.k);
                if (!mm.availability().ok) {
                    std::cout << "SKIPPED: oneDNN matmul not available (" << mm.availability().reason << ")\n";
                    return;
                }
                CHECK_FALSE(mm.implementation().empty());
                CHECK(contains(mm.path(), "oneDNN " + mm.implementation()));
                const std::vector<float> a = core::uniform_signed_floats(s.m * s.k, 7),
                                         b = core::uniform_signed_floats(s.k * s.n, 9);
                std::vector<float> c(static_cast<std::size_t>(s.m * s.n), NAN);
                std::string error;
                if (f == FpFormat::Bf16) {
                    std::vector<uint16_t> a16(a.size()), b16(b.size());
                    cpu::round_to_bf16_bits(a.data(), a16.data(), static_cast<int64_t>(a.size()));
                    cpu::round_to_bf16_bits(b.data(), b16.data(), static_cast<int64_t>(b.size()));
                    error = mm.run(a16.data(), b16.data(), c.data());
                    CHECK(mm.native() == cpu::onednn_bf16_native(mm.implementation()));
                    CHECK(contains(mm.path(), mm.native() ? "native: " : "emulated: "));
                } else {
                    error = mm.run(a.data(), b.data(), c.data());
                }
                CHECK(error.empty());
                CHECK(worst_ratio_to_bound(a, b, c, s.m, s.n, s.k, f) <= 1.0);
            }
        }
    }

    TEST_CASE("oneDNN implementation names are told apart - native or emulated") {
        CHECK(cpu::onednn_bf16_kind("brg:avx512_core_amx_bf16") == "native: AMX tiles (TDPBF16PS)");
        CHECK(cpu::onednn_bf16_kind("brg:avx512_core_bf16") == "native: VDPBF16PS (AVX512_BF16)");
        CHECK(cpu::onednn_bf16_kind("gemm:jit") == "emulated: no BF16 instruction in gemm:jit, BF16 widened to FP32");
        CHECK_FALSE(cpu::onednn_bf16_native("brg:avx512_core"));
        CHECK_FALSE(cpu::onednn_bf16_native("ref:any"));
        CHECK(cpu::onednn_bf16_native("brg:avx512_core_amx"));
        cpu::OnednnMatmul fp16(FpFormat::Fp16, 4, 4, 4);
        CHECK_FALSE(fp16.availability().ok);
    }

    TEST_CASE("the speed workload gives five rows - each ran and checked or says why not") {
        core::MeasureConfig config;
        config.warmup = 1;
        config.min_samples = config.max_samples = 2;
        config.time_budget_ns = 0;
        const core::GemmSpeedRun run = core::measure_gemm_speed(40, config);
        REQUIRE(run.rows.size() == 5);
        for (const core::GemmSpeedRow& r : run.rows) {
            CAPTURE(r.backend);
            CAPTURE(r.path);
            CHECK_FALSE(r.path.empty());
            CHECK(r.error.empty());
            if (r.ran) {
                CHECK(r.check_pass);
                CHECK(r.gflops > 0);
                CHECK(r.gflops_min <= r.gflops);
                CHECK(r.gflops <= r.gflops_max);
            }
        }
        CHECK(run.rows[0].ran);  // cpu-parallel FP32 runs everywhere
        CHECK(run.rows[1].instruction == "AMX");
        CHECK(run.rows[1].ran == cpu::gemm_bf16_availability(Bf16Instruction::Amx).ok);
        CHECK(run.rows[2].instruction == "VDPBF16PS");
        CHECK(run.rows[2].ran == cpu::gemm_bf16_availability(Bf16Instruction::Vdpbf16ps).ok);
        // Our BF16 for the ratios: the first of ours that ran (AMX where it did).
        const core::GemmSpeedRow* ours = run.row("cpu-parallel", FpFormat::Bf16);
        REQUIRE(ours != nullptr);
        CHECK(ours == (run.rows[1].ran || !run.rows[2].ran ? &run.rows[1] : &run.rows[2]));
    }
}
