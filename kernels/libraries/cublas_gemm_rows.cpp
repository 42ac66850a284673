// The plain C++ half of cublas_gemm_precision.h, compiled in every build: the shape check, the rows
// that did not run, the accuracy check against the FP64 product, and the GFLOP/s arithmetic.
#include <algorithm>
#include <cmath>
#include <utility>

#include "cublas_gemm_precision.h"
#include "ops/mixed_matmul.h"

namespace gpulab::gpu {

namespace {

constexpr int64_t kMaxSide = 16384;
constexpr int kCheckedOutputs = 64;
constexpr const char* kNoGpu = "no GPU here";

}  // namespace

std::string cublas_gemm_problem(int64_t m, int64_t n, int64_t k) {
    if (m < 1 || n < 1 || k < 1)
        return "the matrix product needs m, n and k of at least 1 (got " + std::to_string(m) + " x " +
               std::to_string(n) + " x " + std::to_string(k) + ")";
    if (m > kMaxSide || n > kMaxSide || k > kMaxSide)
        return "each side of the matrix product must be at most " + std::to_string(kMaxSide) + " (got " +
               std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) +
               "); larger ones would not fit cuBLAS's int sizes or the GPU's memory";
    return "";
}

std::string no_gpu_reason(const std::string& why) {
    return why.rfind(kNoGpu, 0) == 0 ? why : std::string(kNoGpu) + ": " + why;
}

std::vector<core::GemmSpeedRow> cublas_gemm_not_run(const std::string& why, bool shape_problem) {
    // A shape refusal is not about the GPU; everything else is (no device, no CUDA, no cuBLAS).
    const std::string path = shape_problem ? why : no_gpu_reason(why);
    std::vector<core::GemmSpeedRow> rows;
    for (const core::FpFormat f : kCublasGemmFormats) {
        core::GemmSpeedRow r;
        r.backend = kCublasGemmBackend;
        r.inputs = f;
        r.path = path;
        rows.push_back(std::move(r));
    }
    return rows;
}

// The bound of core::matmul_error_bound assumes round-to-nearest for the input rounding and for each
// FP32 add. cuBLAS documents neither for tensor cores (TF32 conversion inside the library, the order
// and rounding of the FP32 sums in the MMA units), so the GPU rows get twice the bound: what
// truncation instead of round-to-nearest would cost (u doubles). Still far below a wrong result.
double cublas_gemm_worst_ratio(core::FpFormat inputs, const std::vector<float>& a, const std::vector<float>& b,
                               const std::vector<float>& c, int64_t m, int64_t n, int64_t k) {
    return core::sampled_matmul_error_ratio({inputs, core::FpFormat::Fp32}, kCublasGemmMargin, a, b, c, m, n, k,
                                            kCheckedOutputs);
}

void cublas_gemm_fill_times(core::GemmSpeedRow& row, std::vector<int64_t> samples_ns, int64_t m, int64_t n, int64_t k) {
    row.time = core::summarize(std::move(samples_ns));
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    auto rate = [&](int64_t ns) { return ns > 0 ? flops / static_cast<double>(ns) : 0.0; };
    row.gflops = rate(row.time.median_ns);
    row.gflops_min = rate(row.time.max_ns);
    row.gflops_max = rate(row.time.min_ns);
}

}  // namespace gpulab::gpu
