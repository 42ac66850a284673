// The reduced-precision matrix product (core/ops/mixed_matmul.h): worked examples, agreement with
// the FP64 reference within the bound the formats predict, and NaN / infinity.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ops/mixed_matmul.h"
#include "ops/pseudo_random.h"

using namespace gpulab::core;

namespace {

// The largest |C - C64| over the bound for each output: <= 1 means every output is within it.
double worst_ratio(MatmulPrecision p, const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t n,
                   int64_t k) {
    std::vector<float> c(static_cast<std::size_t>(m * n));
    std::vector<double> ref(c.size());
    matmul_reduced(a.data(), b.data(), c.data(), m, n, k, p);
    matmul_fp64(a.data(), b.data(), ref.data(), m, n, k);
    double worst = 0;
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double sum_abs = 0, sum_inputs = 0;
            for (int64_t kk = 0; kk < k; ++kk) {
                const double x = std::fabs(a[static_cast<std::size_t>(i * k + kk)]);
                const double y = std::fabs(b[static_cast<std::size_t>(kk * n + j)]);
                sum_abs += x * y;
                sum_inputs += x + y;
            }
            // The FP64 reference's own rounding (K * 2^-53 * sum_abs) is added so that the bound is strict.
            const double bound = matmul_error_bound(p, k, sum_abs, sum_inputs) + 1.2 * k * std::ldexp(sum_abs, -53);
            const double err = std::fabs(c[static_cast<std::size_t>(i * n + j)] - ref[static_cast<std::size_t>(i * n + j)]);
            worst = std::max(worst, err / bound);
        }
    }
    return worst;
}

}  // namespace

TEST_SUITE("mixed_matmul") {
    TEST_CASE("worked examples: rounding of the inputs and of the sum") {
        // [0.1 0.2] x [0.3; 0.4] = 0.03 + 0.08 = 0.11.
        const float a[2] = {0.1f, 0.2f}, b[2] = {0.3f, 0.4f};
        float c = 0;
        // FP16 inputs, 11 significant bits: 0.1 = 1.6 x 2^-4 -> 1638/1024 x 2^-4 = 0.0999755859375;
        // 0.2 -> 0.199951171875 (the same fraction); 0.3 = 1.2 x 2^-2, 0.2 x 1024 = 204.8 -> 205:
        // 1229/4096 = 0.300048828125; 0.4 = 1.6 x 2^-2 -> 1638/4096 = 0.39990234375. In FP32:
        // fma(0.199951171875, 0.39990234375, fma(0.0999755859375, 0.300048828125, 0)).
        matmul_reduced(a, b, &c, 1, 1, 2, {FpFormat::Fp16, FpFormat::Fp32});
        const float p0 = std::fma(0.0999755859375f, 0.300048828125f, 0.0f);
        CHECK(c == std::fma(0.199951171875f, 0.39990234375f, p0));
        CHECK(c == doctest::Approx(0.11).epsilon(1e-3));
        // FP32 everywhere is the fused loop on the floats themselves.
        matmul_reduced(a, b, &c, 1, 1, 2, {FpFormat::Fp32, FpFormat::Fp32});
        CHECK(c == std::fma(0.2f, 0.4f, std::fma(0.1f, 0.3f, 0.0f)));
        // 3000 ones times ones: FP32 counts to 3000; an FP16 sum stops at 2048 (at 2048 FP16 steps by 2,
        // and 2048 + 1 is a tie that rounds back to 2048).
        const std::vector<float> ones(3000, 1.0f);
        matmul_reduced(ones.data(), ones.data(), &c, 1, 1, 3000, {FpFormat::Fp16, FpFormat::Fp32});
        CHECK(c == 3000.0f);
        matmul_reduced(ones.data(), ones.data(), &c, 1, 1, 3000, {FpFormat::Fp16, FpFormat::Fp16});
        CHECK(c == 2048.0f);
        CHECK(precision_label({FpFormat::Bf16, FpFormat::Fp32}) == "BF16 inputs, FP32 accumulation");
    }

    TEST_CASE("every combination agrees with FP64 within the error its formats predict") {
        const int64_t m = 12, n = 10;
        for (int64_t k : {1, 16, 100, 1000}) {
            const auto a = uniform_signed_floats(m * k, 100 + k), b = uniform_signed_floats(k * n, 200 + k);
            for (FpFormat in : kAllFormats) {
                for (FpFormat acc : kAllFormats) {
                    const MatmulPrecision p{in, acc};
                    if (std::isinf(matmul_error_bound(p, k, 1.0, 1.0))) continue;  // no useful bound (K u >= 1)
                    INFO(precision_label(p) << ", K = " << k);
                    CHECK(worst_ratio(p, a, b, m, n, k) <= 1.0);
                }
            }
        }
    }

    TEST_CASE("the bound is not vacuous: narrow formats use a real part of it") {
        // BF16 inputs lose up to 2^-8 of each factor: with K = 1000 the error reaches a visible share
        // of the bound (a bound a thousand times too loose would teach nothing).
        const int64_t m = 12, n = 10, k = 1000;
        const auto a = uniform_signed_floats(m * k, 5), b = uniform_signed_floats(k * n, 6);
        CHECK(worst_ratio({FpFormat::Bf16, FpFormat::Fp32}, a, b, m, n, k) > 0.01);
        // (The bound on the sum's own rounding, gamma_K, is a worst case: random signs cancel and stay far
        // below it, so FP16 accumulation is not checked this way.)
        // FP16 accumulation of 2,048 terms or more has no bound: K u >= 1.
        CHECK(std::isinf(matmul_error_bound({FpFormat::Fp16, FpFormat::Fp16}, 2048, 1.0, 1.0)));
        CHECK(std::isfinite(matmul_error_bound({FpFormat::Fp16, FpFormat::Fp32}, 65536, 1.0, 1.0)));
    }

    TEST_CASE("NaN and infinity propagate as IEEE arithmetic does - FP16 overflows to infinity") {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float a[4] = {1.0f, nan, 2.0f, 3.0f};  // 2 x 2
        const float b[4] = {1.0f, 2.0f, 3.0f, 4.0f};
        float c[4];
        matmul_reduced(a, b, c, 2, 2, 2, {FpFormat::Fp32, FpFormat::Fp32});
        CHECK(std::isnan(c[0]));
        CHECK(std::isnan(c[1]));
        CHECK(c[2] == 2.0f * 1.0f + 3.0f * 3.0f);
        // 1e5 is past FP16's 65,504: it becomes infinity, and infinity x 0 is NaN.
        const float big[2] = {1e5f, 1.0f}, mixed[4] = {1.0f, 0.0f, 1.0f, 1.0f};
        float out[2];
        matmul_reduced(big, mixed, out, 1, 2, 2, {FpFormat::Fp16, FpFormat::Fp32});
        CHECK(std::isinf(out[0]));
        CHECK(std::isnan(out[1]));
        // The same in BF16, which has FP32's range: finite.
        matmul_reduced(big, mixed, out, 1, 2, 2, {FpFormat::Bf16, FpFormat::Fp32});
        CHECK(std::isfinite(out[0]));
        CHECK(out[0] == 99840.0f + 1.0f);  // 1e5 in BF16: 0x47C3 = 99,840
    }
}
