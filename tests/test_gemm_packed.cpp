// The packed FP32 product (core/backends/simd/gemm_packed.h) and every rung of the ladder
// (core/backends/simd/gemm_rungs.h) against a double-precision triple loop, for every instruction set
// this CPU has (AVX-512, AVX2+FMA, SSE2): shapes of one element, shapes that are no multiple of any
// micro-tile or block (and cross each ISA's kc, mc and nc), k = 0, a transposed A, accumulation into
// C, and a C inside a wider matrix whose other columns must stay untouched. Each output must lie
// within the classic bound of an FP32 sum, core::matmul_error_bound. No timing here: speed is
// `gpulab bench --suite tensor`. CTest also runs this suite under GPULAB_ISA=avx2 (tests/CMakeLists.txt).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/simd/gemm_bf16.h"
#include "backends/simd/gemm_packed.h"
#include "backends/simd/gemm_rungs.h"
#include "backends/simd/simd_math.h"
#include "ops/mixed_matmul.h"
#include "ops/pseudo_random.h"
#include "workloads/gemm_ladder.h"

using namespace gpulab;
using cpu::SimdIsa;

namespace {

struct Shape {
    std::int64_t m, n, k;
};

// 1 x 1 x 1; below one micro-tile; odd sizes past a micro-tile (6 x 64 on AVX-512, 4 x 24 AVX2, 6 x 8
// SSE2) and exactly one; k past a kc (384 AVX-512, 512 AVX2, 256 SSE2); rows past an mc (336, 168, 120)
// and past the threads' row blocks; columns past an nc (4096, 4080); k = 0.
constexpr Shape kShapes[] = {{1, 1, 1},   {7, 13, 5},    {97, 131, 257}, {6, 64, 3},   {4, 24, 2},
                             {15, 33, 1}, {29, 65, 400}, {350, 70, 390}, {3, 4129, 5}, {700, 45, 20},
                             {5, 9, 0},   {2, 3, 770},   {9, 200, 513}};

// |got - exact| <= matmul_error_bound for FP32 sums of k + 2 terms (the kc runs add their part to C
// once more each; accumulation adds C's start), with the FP64 reference's own rounding. C(i, j) at
// c[i * ldc + j]; start[] is C before an accumulating call (else zeros).
double worst_ratio(const std::vector<float>& a, std::int64_t a_row, std::int64_t a_col, const std::vector<float>& b,
                   const std::vector<float>& start, const std::vector<float>& c, std::int64_t ldc, const Shape& s,
                   bool accumulate) {
    double worst = 0.0;
    for (std::int64_t i = 0; i < s.m; ++i) {
        for (std::int64_t j = 0; j < s.n; ++j) {
            const double c0 = accumulate ? start[static_cast<std::size_t>(i * ldc + j)] : 0.0;
            double exact = c0, sum_abs = std::fabs(c0);
            for (std::int64_t p = 0; p < s.k; ++p) {
                const double x = a[static_cast<std::size_t>(i * a_row + p * a_col)];
                const double y = b[static_cast<std::size_t>(p * s.n + j)];
                exact += x * y;
                sum_abs += std::fabs(x * y);
            }
            const double bound =
                core::matmul_error_bound({core::FpFormat::Fp32, core::FpFormat::Fp32}, s.k + 2, sum_abs, 0.0) +
                (static_cast<double>(s.k) + 2.0) * std::ldexp(sum_abs, -53) + 1e-30;
            const double got = c[static_cast<std::size_t>(i * ldc + j)];
            worst = std::max(worst, std::isfinite(got) ? std::fabs(got - exact) / bound : INFINITY);
        }
    }
    return worst;
}

std::string label(SimdIsa isa, const Shape& s) {
    return std::string(cpu::simd_isa_name(isa)) + " " + std::to_string(s.m) + "x" + std::to_string(s.n) + "x" +
           std::to_string(s.k);
}

}  // namespace

TEST_SUITE("gemm_packed") {
    TEST_CASE("the packed product equals the FP64 loop within an FP32 sum's bound - every ISA - one and all cores") {
        for (const SimdIsa isa : cpu::usable_simd_isas()) {
            for (const Shape& s : kShapes) {
                const std::vector<float> a = core::uniform_signed_floats(s.m * s.k, 3),
                                         b = core::uniform_signed_floats(s.k * s.n, 5);
                for (const bool all_cores : {false, true}) {
                    INFO(label(isa, s) << (all_cores ? " all cores" : " one core"));
                    std::vector<float> c(static_cast<std::size_t>(s.m * s.n), NAN);
                    cpu::gemm_packed_with(isa, s.m, s.n, s.k, a.data(), s.k, 1, b.data(), s.n, c.data(), s.n, false,
                                          all_cores);
                    CHECK(worst_ratio(a, s.k, 1, b, c, c, s.n, s, false) <= 1.0);
                }
            }
        }
    }

    TEST_CASE("a transposed A - accumulation into C - a C inside a wider matrix left untouched outside") {
        for (const SimdIsa isa : cpu::usable_simd_isas()) {
            for (const Shape& s : {Shape{97, 131, 257}, Shape{29, 65, 400}, Shape{7, 13, 5}, Shape{5, 9, 0}}) {
                INFO(label(isa, s));
                const std::vector<float> a = core::uniform_signed_floats(s.m * s.k, 7),
                                         b = core::uniform_signed_floats(s.k * s.n, 9);
                // The same numbers stored transposed: A(i, p) = at[p * m + i].
                std::vector<float> at(a.size());
                for (std::int64_t i = 0; i < s.m; ++i)
                    for (std::int64_t p = 0; p < s.k; ++p)
                        at[static_cast<std::size_t>(p * s.m + i)] = a[static_cast<std::size_t>(i * s.k + p)];
                const std::int64_t ldc = s.n + 11;  // C is the left part of an m x (n + 11) matrix
                const std::vector<float> start = core::uniform_signed_floats(s.m * ldc, 11);
                for (const bool all_cores : {false, true}) {
                    std::vector<float> c = start;
                    cpu::gemm_packed_with(isa, s.m, s.n, s.k, at.data(), 1, s.m, b.data(), s.n, c.data(), ldc, true,
                                          all_cores);
                    CHECK(worst_ratio(at, 1, s.m, b, start, c, ldc, s, true) <= 1.0);
                    std::int64_t touched = 0;
                    for (std::int64_t i = 0; i < s.m; ++i)
                        for (std::int64_t j = s.n; j < ldc; ++j)
                            touched += c[static_cast<std::size_t>(i * ldc + j)] !=
                                       start[static_cast<std::size_t>(i * ldc + j)];
                    CHECK(touched == 0);
                }
            }
        }
    }

    TEST_CASE("k of 0 zeroes C or leaves it - m or n of 0 writes nothing") {
        for (const SimdIsa isa : cpu::usable_simd_isas()) {
            CAPTURE(cpu::simd_isa_name(isa));
            std::vector<float> c(6, 7.0f);
            cpu::gemm_packed_with(isa, 2, 3, 0, nullptr, 0, 1, nullptr, 3, c.data(), 3, true, true);
            for (float x : c) CHECK(x == 7.0f);
            cpu::gemm_packed_with(isa, 2, 3, 0, nullptr, 0, 1, nullptr, 3, c.data(), 3, false, true);
            for (float x : c) CHECK(x == 0.0f);
            float untouched = 7.0f;
            cpu::gemm_packed_with(isa, 0, 1, 4, nullptr, 4, 1, nullptr, 1, &untouched, 1, false, true);
            cpu::gemm_packed_with(isa, 1, 0, 4, nullptr, 4, 1, nullptr, 0, &untouched, 0, false, true);
            CHECK(untouched == 7.0f);
        }
    }

    TEST_CASE("every rung of the ladder equals the FP64 loop - every ISA") {
        for (const SimdIsa isa : cpu::usable_simd_isas()) {
            for (const Shape& s : kShapes) {
                if (s.m * s.n * s.k > 20'000'000) continue;  // the naive rung at 350 x 70 x 390 is enough
                const std::vector<float> a = core::uniform_signed_floats(s.m * s.k, 13),
                                         b = core::uniform_signed_floats(s.k * s.n, 17);
                for (const cpu::GemmRung rung : cpu::kGemmRungs) {
                    INFO(label(isa, s) << " " << cpu::gemm_rung_name(rung));
                    std::vector<float> c(static_cast<std::size_t>(s.m * s.n), NAN);
                    cpu::run_gemm_rung_with(isa, rung, a.data(), b.data(), c.data(), s.m, s.n, s.k);
                    CHECK(worst_ratio(a, s.k, 1, b, c, c, s.n, s, false) <= 1.0);
                }
            }
        }
    }

    TEST_CASE("the rungs have names ids and ideas - only the last uses every core") {
        for (const cpu::GemmRung rung : cpu::kGemmRungs) {
            CHECK(std::string(cpu::gemm_rung_name(rung)).size() > 3);
            CHECK(std::string(cpu::gemm_rung_id(rung)).find(' ') == std::string::npos);
            CHECK(std::string(cpu::gemm_rung_idea(rung)).size() > 20);
            CHECK(cpu::gemm_rung_all_cores(rung) == (rung == cpu::GemmRung::PackedAllCores));
        }
    }

    TEST_CASE("cpu-parallel's FP32 product is the packed one - on the ISA GPULAB_ISA allows") {
        const std::string isa(cpu::simd_isa_name(cpu::best_simd_isa()));
        CHECK(std::string(cpu::gemm_packed_path()).rfind(isa + ", ", 0) == 0);
        const cpu::PackedGemmShape shape = cpu::packed_gemm_shape(cpu::best_simd_isa());
        CHECK(shape.nr % cpu::simd_isa_lanes(cpu::best_simd_isa()) == 0);
        CHECK(shape.nc % shape.nr == 0);
        CHECK(shape.mc % shape.mr == 0);
        // gemm_fp32_parallel gives the packed product's numbers exactly (same kernel, same order of sums).
        const Shape s{97, 131, 257};
        const std::vector<float> a = core::uniform_signed_floats(s.m * s.k, 19),
                                 b = core::uniform_signed_floats(s.k * s.n, 23);
        std::vector<float> got(static_cast<std::size_t>(s.m * s.n)), want(got.size());
        cpu::gemm_fp32_parallel(a.data(), b.data(), got.data(), s.m, s.n, s.k);
        cpu::gemm_packed(s.m, s.n, s.k, a.data(), s.k, 1, b.data(), s.n, want.data(), s.n, false, true);
        CHECK(got == want);
    }

    TEST_CASE("the ladder workload runs every rung once and checks it - a peak is measured") {
        core::MeasureConfig config;
        config.warmup = 0;
        config.min_samples = config.max_samples = 1;
        config.time_budget_ns = 0;
        const core::GemmLadder ladder = core::measure_gemm_ladder(33, config);
        CHECK(ladder.peak.one_core_gflops > 0.0);
        CHECK(ladder.peak.all_cores_gflops > 0.0);
        REQUIRE(ladder.rows.size() == cpu::kGemmRungs.size());
        for (std::size_t i = 0; i < ladder.rows.size(); ++i) {
            const core::GemmRungRow& row = ladder.rows[i];
            INFO(cpu::gemm_rung_name(row.rung));
            CHECK(row.rung == cpu::kGemmRungs[i]);
            CHECK(row.speed.ran);
            CHECK(row.speed.check_pass);
            CHECK(row.fraction_of_peak > 0.0);
            CHECK(row.threads == (cpu::gemm_rung_all_cores(row.rung) ? ladder.peak.threads : 1));
        }
    }
}
