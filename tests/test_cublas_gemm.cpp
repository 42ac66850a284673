// The GPU rows of the tensor speed step (kernels/libraries/cublas_gemm_precision.h). On the host:
// without a GPU the four rows exist and say "not run: no GPU here" with the reason; bad shapes are
// refused with a sentence in every build; the accuracy check passes an exact product and catches a
// wrong one; GFLOP/s come from the median. "gpu" suite: the four rows run and match where a GPU is.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "libraries/cublas_gemm_precision.h"
#include "ops/fp_formats.h"
#include "ops/pseudo_random.h"

using namespace gpulab;
using core::FpFormat;

namespace {

bool starts_with(const std::string& text, const std::string& part) { return text.rfind(part, 0) == 0; }
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

core::MeasureConfig quick() {
    core::MeasureConfig c;
    c.warmup = 1;
    c.min_samples = 3;
    c.max_samples = 3;
    c.time_budget_ns = 0;
    return c;
}

// C from the rounded inputs in FP64, stored as floats: what a correct GPU product is near.
std::vector<float> product(FpFormat f, const std::vector<float>& a, const std::vector<float>& b, int64_t m, int64_t n,
                           int64_t k) {
    std::vector<float> c(static_cast<std::size_t>(m * n));
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            double s = 0.0;
            for (int64_t kk = 0; kk < k; ++kk)
                s += static_cast<double>(core::round_to(f, a[static_cast<std::size_t>(i * k + kk)])) *
                     core::round_to(f, b[static_cast<std::size_t>(kk * n + j)]);
            c[static_cast<std::size_t>(i * n + j)] = static_cast<float>(s);
        }
    return c;
}

}  // namespace

TEST_SUITE("tensor") {
    TEST_CASE("cuBLAS rows without a GPU: four rows listed and each says not run: no GPU here") {
        if (gpu::probe().device_ok) return;  // the "gpu" suite covers a machine with one
        const std::vector<core::GemmSpeedRow> rows = gpu::measure_cublas_gemm(64, 64, 64, quick());
        REQUIRE(rows.size() == 4);
        const FpFormat order[] = {FpFormat::Fp32, FpFormat::Tf32, FpFormat::Fp16, FpFormat::Bf16};
        for (std::size_t i = 0; i < rows.size(); ++i) {
            CHECK(rows[i].backend == "gpu-cublas");
            CHECK(rows[i].inputs == order[i]);
            CHECK_FALSE(rows[i].ran);
            CHECK(rows[i].error.empty());
            CHECK(starts_with(rows[i].path, "no GPU here: "));
            CHECK(rows[i].path.size() > std::string("no GPU here: ").size());  // and the reason
        }
    }

    TEST_CASE("cuBLAS rows refuse bad shapes with a sentence in every build") {
        CHECK(gpu::cublas_gemm_problem(64, 32, 16).empty());
        CHECK(gpu::cublas_gemm_problem(16384, 1, 16384).empty());
        CHECK(contains(gpu::cublas_gemm_problem(0, 64, 64), "at least 1 (got 0 x 64 x 64)"));
        CHECK(contains(gpu::cublas_gemm_problem(64, -3, 64), "at least 1"));
        CHECK(contains(gpu::cublas_gemm_problem(64, 64, 16385), "at most 16384"));
        for (const core::GemmSpeedRow& r : gpu::measure_cublas_gemm(64, 0, 64, quick())) {
            CHECK_FALSE(r.ran);
            CHECK(starts_with(r.path, "the matrix product needs m, n and k of at least 1"));
        }
    }

    TEST_CASE("cuBLAS rows accuracy check: an exact product passes and a wrong one fails") {
        const int64_t m = 24, n = 40, k = 300;
        const std::vector<float> a = core::uniform_signed_floats(m * k, 1), b = core::uniform_signed_floats(k * n, 2);
        for (const FpFormat f : gpu::kCublasGemmFormats) {
            CAPTURE(core::format_label(f));
            std::vector<float> c = product(f, a, b, m, n, k);
            CHECK(gpu::cublas_gemm_worst_ratio(f, a, b, c, m, n, k) <= 1.0);
            c[0] += 10.0f;  // output (0, 0) is always checked; |C| is about 6 here, every bound below 1
            CHECK(gpu::cublas_gemm_worst_ratio(f, a, b, c, m, n, k) > 1.0);
            c[0] = NAN;
            CHECK(std::isinf(gpu::cublas_gemm_worst_ratio(f, a, b, c, m, n, k)));
        }
        // FP32 inputs: no input rounding allowed, so BF16-rounded inputs' product is far outside.
        const std::vector<float> rounded = product(FpFormat::Bf16, a, b, m, n, k);
        CHECK(gpu::cublas_gemm_worst_ratio(FpFormat::Fp32, a, b, rounded, m, n, k) > 1.0);
    }

    TEST_CASE("cuBLAS rows GFLOP/s: 2 m n k over the median and the spread from the extremes") {
        core::GemmSpeedRow r;
        gpu::cublas_gemm_fill_times(r, {4000, 1000, 2000}, 100, 100, 100);  // 2e6 flops
        CHECK(r.time.median_ns == 2000);
        CHECK(r.gflops == doctest::Approx(1000.0));
        CHECK(r.gflops_min == doctest::Approx(500.0));
        CHECK(r.gflops_max == doctest::Approx(2000.0));
    }
}

TEST_SUITE("gpu") {
    TEST_CASE("cuBLAS rows at 256 cubed run in FP32 TF32 FP16 and BF16 and match the FP64 product") {
        if (!testing::gpu_ready()) return;
        const std::vector<core::GemmSpeedRow> rows = gpu::measure_cublas_gemm(256, 192, 320, quick());
        REQUIRE(rows.size() == 4);
        for (const core::GemmSpeedRow& r : rows) {
            CAPTURE(core::format_label(r.inputs));
            CAPTURE(r.path);
            CAPTURE(r.error);
            if (!r.ran && contains(r.path, "tensor cores; they need")) continue;  // an older GPU: said why
            CHECK(r.ran);
            CHECK(r.check_pass);
            CHECK(r.time.samples == 3);
            CHECK(r.gflops > 0.0);
        }
    }
}
