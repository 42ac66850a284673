// The reduced-precision matrix product and its error bound (see mixed_matmul.h).
#include "mixed_matmul.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace gpulab::core {

std::string precision_label(const MatmulPrecision& p) {
    return std::string(format_label(p.inputs)) + " inputs, " + format_label(p.accumulate) + " accumulation";
}

void matmul_reduced(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, MatmulPrecision p) {
    // Round every input once, up front: the loop below then sees exactly the values a kernel
    // would hold in its registers.
    std::vector<float> ra(static_cast<std::size_t>(m * k)), rb(static_cast<std::size_t>(k * n));
    for (std::size_t i = 0; i < ra.size(); ++i) ra[i] = round_to(p.inputs, a[i]);
    for (std::size_t i = 0; i < rb.size(); ++i) rb[i] = round_to(p.inputs, b[i]);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (int64_t kk = 0; kk < k; ++kk) acc = multiply_add(p.accumulate, ra[i * k + kk], rb[kk * n + j], acc);
            c[i * n + j] = acc;
        }
    }
}

void matmul_fp64(const float* a, const float* b, double* c, int64_t m, int64_t n, int64_t k) {
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double acc = 0.0;
            for (int64_t kk = 0; kk < k; ++kk) acc += static_cast<double>(a[i * k + kk]) * static_cast<double>(b[kk * n + j]);
            c[i * n + j] = acc;
        }
    }
}

double matmul_error_bound(MatmulPrecision p, int64_t k, double sum_abs, double sum_abs_inputs) {
    const FormatRange in = format_range(p.inputs), acc = format_range(p.accumulate);
    // FP32 inputs are already FP32: no input rounding at all.
    const double u_in = p.inputs == FpFormat::Fp32 ? 0.0 : std::ldexp(1.0, -in.significant_bits);
    const double eta_in = p.inputs == FpFormat::Fp32 ? 0.0 : in.min_subnormal;
    const double u_acc = std::ldexp(1.0, -acc.significant_bits);
    const double ku = static_cast<double>(k) * u_acc;
    if (ku >= 1.0) return std::numeric_limits<double>::infinity();
    const double gamma = ku / (1.0 - ku);
    const double kd = static_cast<double>(k);
    // What rounding the inputs can move the exact sum by, then what the K roundings of the running
    // sum can add, relative to the sum of |products| of the rounded inputs (at most sum_abs + that).
    const double inputs_error =
        sum_abs * (2.0 * u_in + u_in * u_in) + 0.5 * eta_in * (1.0 + u_in) * sum_abs_inputs + kd * eta_in * eta_in / 4.0;
    return inputs_error + gamma * (sum_abs + inputs_error) + kd * acc.min_subnormal / 2.0;
}

double sampled_matmul_error_ratio(MatmulPrecision p, double margin, const std::vector<float>& a,
                                  const std::vector<float>& b, const std::vector<float>& c, int64_t m, int64_t n,
                                  int64_t k, int outputs) {
    double worst = 0.0;
    uint64_t s = 12345;
    for (int t = 0; t < outputs; ++t) {
        int64_t i = 0, j = 0;
        if (t == 1) j = n - 1;
        else if (t == 2) i = m - 1;
        else if (t == 3) i = m - 1, j = n - 1;
        else if (t > 3) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            i = static_cast<int64_t>((s >> 33) % static_cast<uint64_t>(m));
            j = static_cast<int64_t>((s >> 13) % static_cast<uint64_t>(n));
        }
        double exact = 0.0, sum_abs = 0.0, sum_inputs = 0.0;
        for (int64_t kk = 0; kk < k; ++kk) {
            const double x = a[static_cast<std::size_t>(i * k + kk)], y = b[static_cast<std::size_t>(kk * n + j)];
            exact += x * y;
            sum_abs += std::fabs(x * y);
            sum_inputs += std::fabs(x) + std::fabs(y);
        }
        const double bound = margin * matmul_error_bound(p, k, sum_abs, sum_inputs) +
                             1.2 * static_cast<double>(k) * std::ldexp(sum_abs, -53);
        const double err = std::fabs(static_cast<double>(c[static_cast<std::size_t>(i * n + j)]) - exact);
        if (!(err == err)) return std::numeric_limits<double>::infinity();  // NaN: certainly wrong
        worst = std::max(worst, bound > 0 ? err / bound : (err > 0 ? std::numeric_limits<double>::infinity() : 0.0));
    }
    return worst;
}

}  // namespace gpulab::core
