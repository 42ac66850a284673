// The ladder of FP32 matrix products, measured (see gemm_ladder.h).
#include "gemm_ladder.h"

#include <algorithm>
#include <atomic>

#include "backends/simd/simd_math.h"
#include "measure/clock.h"
#include "ops/mixed_matmul.h"
#include "ops/pseudo_random.h"
#include "runtime/thread_pool.h"

namespace gpulab::core {

namespace {

// Steps of one burst: 2^22 steps of 28 FMAs is about 50 ms on one AVX-512 core near 3 GHz.
constexpr int64_t kBurstSteps = int64_t{1} << 22;
constexpr int kPeakTries = 5;

double one_core_gflops() {
    double best = 0.0;
    for (int t = 0; t < kPeakTries; ++t) {
        const int64_t t0 = now_ns();
        const double flops = cpu::run_fma_burst(kBurstSteps);
        const int64_t t1 = now_ns();
        if (t1 > t0) best = std::max(best, flops / static_cast<double>(t1 - t0));
    }
    return best;
}

double all_cores_gflops(cpu::ThreadPool& pool) {
    double best = 0.0;
    for (int t = 0; t < kPeakTries; ++t) {
        std::atomic<int64_t> bursts{0};
        double flops_per_burst = 0.0;
        const int64_t t0 = now_ns();
        // One burst per thread: chunks of one, so each thread of the pool takes one.
        pool.parallel_for(
            pool.size(),
            [&](int64_t begin, int64_t end) {
                for (int64_t i = begin; i < end; ++i) {
                    const double flops = cpu::run_fma_burst(kBurstSteps);
                    if (bursts.fetch_add(1) == 0) flops_per_burst = flops;
                }
            },
            1);
        const int64_t t1 = now_ns();
        if (t1 > t0)
            best = std::max(best, static_cast<double>(bursts.load()) * flops_per_burst / static_cast<double>(t1 - t0));
    }
    return best;
}

}  // namespace

FmaPeak measure_fma_peak() {
    cpu::ThreadPool& pool = cpu::ThreadPool::shared();
    FmaPeak peak;
    peak.threads = pool.size();
    peak.one_core_gflops = one_core_gflops();
    peak.all_cores_gflops = all_cores_gflops(pool);
    return peak;
}

GemmLadder measure_gemm_ladder(int64_t size, const MeasureConfig& config) {
    GemmLadder ladder;
    ladder.size = size;
    ladder.isa = cpu::isa_summary();
    ladder.peak = measure_fma_peak();
    const std::vector<float> a = uniform_signed_floats(size * size, 1), b = uniform_signed_floats(size * size, 2);
    std::vector<float> c(static_cast<std::size_t>(size * size));
    const double flops = 2.0 * static_cast<double>(size) * static_cast<double>(size) * static_cast<double>(size);
    for (const cpu::GemmRung rung : cpu::kGemmRungs) {
        GemmRungRow row;
        row.rung = rung;
        row.threads = cpu::gemm_rung_all_cores(rung) ? ladder.peak.threads : 1;
        row.speed.backend = "cpu-parallel";
        row.speed.native = true;
        row.speed.instruction = cpu::gemm_rung_id(rung);
        row.speed.path = cpu::gemm_rung_name(rung);
        std::fill(c.begin(), c.end(), 0.0f);
        time_gemm_row(row.speed, config, flops, [&] {
            cpu::run_gemm_rung(rung, a.data(), b.data(), c.data(), size, size, size);
            return std::string();
        });
        if (row.speed.ran) {
            row.speed.worst_error_ratio =
                sampled_matmul_error_ratio({FpFormat::Fp32, FpFormat::Fp32}, 1.0, a, b, c, size, size, size, 64);
            row.speed.check_pass = row.speed.worst_error_ratio <= 1.0;
            const double peak = row.threads > 1 ? ladder.peak.all_cores_gflops : ladder.peak.one_core_gflops;
            row.fraction_of_peak = peak > 0 ? row.speed.gflops / peak : 0.0;
        }
        ladder.rows.push_back(row);
    }
    return ladder;
}

}  // namespace gpulab::core
