// GEMM GFLOP/s per precision and backend (see tensor_speed.h).
#include "tensor_speed.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>

#include "backends/cpu_onednn_matmul.h"
#include "backends/simd/gemm_bf16.h"
#include "backends/simd/gemm_packed.h"
#include "measure/clock.h"
#include "ops/mixed_matmul.h"
#include "ops/pseudo_random.h"

namespace gpulab::core {

namespace {

constexpr int kCheckedOutputs = 64;

// `ra` and `rb` are the inputs as the product saw them (rounded for BF16), so the bound is the FP32
// sum's alone: FP32 "inputs" to core::sampled_matmul_error_ratio.
double checked(const std::vector<float>& ra, const std::vector<float>& rb, const std::vector<float>& c, int64_t size) {
    return sampled_matmul_error_ratio({FpFormat::Fp32, FpFormat::Fp32}, 1.0, ra, rb, c, size, size, size,
                                      kCheckedOutputs);
}


}  // namespace

void time_gemm_row(GemmSpeedRow& row, const MeasureConfig& config, double flops, const std::function<std::string()>& run) {
    std::vector<int64_t> samples;
    try {
        for (int w = 0; w < config.warmup; ++w) {
            row.error = run();
            if (!row.error.empty()) return;
        }
        const int64_t start = now_ns();
        while (static_cast<int>(samples.size()) < config.max_samples) {
            if (static_cast<int>(samples.size()) >= config.min_samples && now_ns() - start > config.time_budget_ns) break;
            const int64_t t0 = now_ns();
            row.error = run();
            const int64_t t1 = now_ns();
            if (!row.error.empty()) return;
            samples.push_back(t1 - t0);
        }
    } catch (const std::exception& e) {
        row.error = e.what();
        return;
    }
    row.ran = true;
    row.time = summarize(samples);
    auto rate = [&](int64_t ns) { return ns > 0 ? flops / static_cast<double>(ns) : 0.0; };
    row.gflops = rate(row.time.median_ns);
    row.gflops_min = rate(row.time.max_ns);
    row.gflops_max = rate(row.time.min_ns);
}

const GemmSpeedRow* GemmSpeedRun::row(const std::string& backend, FpFormat in) const {
    const GemmSpeedRow* first = nullptr;
    for (const GemmSpeedRow& r : rows) {
        if (r.backend != backend || r.inputs != in) continue;
        if (r.ran) return &r;
        if (first == nullptr) first = &r;
    }
    return first;
}

double gflops_ratio(const GemmSpeedRow* x, const GemmSpeedRow* y) {
    return x != nullptr && y != nullptr && x->ran && y->ran && y->gflops > 0 ? x->gflops / y->gflops : 0.0;
}

double GemmSpeedRun::ours_bf16_over_fp32() const {
    return gflops_ratio(row("cpu-parallel", FpFormat::Bf16), row("cpu-parallel", FpFormat::Fp32));
}
double GemmSpeedRun::onednn_bf16_over_fp32() const {
    return gflops_ratio(row("cpu-onednn", FpFormat::Bf16), row("cpu-onednn", FpFormat::Fp32));
}
double GemmSpeedRun::ours_over_onednn_fp32() const {
    return gflops_ratio(row("cpu-parallel", FpFormat::Fp32), row("cpu-onednn", FpFormat::Fp32));
}
double GemmSpeedRun::ours_over_onednn_bf16() const {
    return gflops_ratio(row("cpu-parallel", FpFormat::Bf16), row("cpu-onednn", FpFormat::Bf16));
}

GemmSpeedRun measure_gemm_speed(int64_t size, const MeasureConfig& config, GemmRows which_rows) {
    GemmSpeedRun run;
    run.size = size;
    const std::size_t elements = static_cast<std::size_t>(size * size);
    const std::vector<float> a = uniform_signed_floats(size * size, 1), b = uniform_signed_floats(size * size, 2);
    std::vector<float> ra(elements), rb(elements);  // the BF16 values, as floats (for the check)
    std::vector<uint16_t> a16(elements), b16(elements);  // and as bits (for oneDNN)
    cpu::round_to_bf16_bits(a.data(), a16.data(), static_cast<int64_t>(elements));
    cpu::round_to_bf16_bits(b.data(), b16.data(), static_cast<int64_t>(elements));
    for (std::size_t i = 0; i < elements; ++i) ra[i] = bf16_value(a16[i]), rb[i] = bf16_value(b16[i]);
    std::vector<float> c(elements);
    const double flops = 2.0 * static_cast<double>(size) * static_cast<double>(size) * static_cast<double>(size);
    auto time_row = [&](GemmSpeedRow& row, const std::function<std::string()>& product) {
        time_gemm_row(row, config, flops, product);
    };

    auto finish = [&](GemmSpeedRow& row) {
        if (row.ran) {
            row.worst_error_ratio = row.inputs == FpFormat::Bf16 ? checked(ra, rb, c, size) : checked(a, b, c, size);
            row.check_pass = row.worst_error_ratio <= 1.0;
        }
        run.rows.push_back(row);
    };

    {
        GemmSpeedRow row;
        row.backend = "cpu-parallel";
        row.native = true;
        row.path = std::string("packed GEMM, ") + cpu::gemm_packed_path() + ", FP32 FMA";
        if (cpu::isa_choice().forced) row.path += " (GPULAB_ISA=" + cpu::isa_choice().request + ")";
        time_row(row, [&] {
            cpu::gemm_fp32_parallel(a.data(), b.data(), c.data(), size, size, size);
            return std::string();
        });
        finish(row);
    }
    // AMX first: where it runs it is the faster, and row() takes the first that ran.
    for (cpu::Bf16Instruction which : {cpu::Bf16Instruction::Amx, cpu::Bf16Instruction::Vdpbf16ps}) {
        if (which_rows == GemmRows::Fp32Only) break;
        GemmSpeedRow row;
        row.backend = "cpu-parallel";
        row.inputs = FpFormat::Bf16;
        row.instruction = which == cpu::Bf16Instruction::Amx ? "AMX" : "VDPBF16PS";
        const Availability av = cpu::gemm_bf16_availability(which);
        row.path = av.reason;
        row.native = av.ok;
        if (av.ok) {
            time_row(row, [&] {
                return cpu::gemm_bf16(a.data(), b.data(), c.data(), size, size, size, which) ? std::string()
                                                                                               : std::string("refused");
            });
        }
        finish(row);
    }
    for (FpFormat f : {FpFormat::Fp32, FpFormat::Bf16}) {
        if (f == FpFormat::Bf16 && which_rows == GemmRows::Fp32Only) break;
        GemmSpeedRow row;
        row.backend = "cpu-onednn";
        row.inputs = f;
        cpu::OnednnMatmul mm(f, size, size, size);
        row.path = mm.availability().ok ? mm.path() : mm.availability().reason;
        row.native = mm.availability().ok && mm.native();
        if (mm.availability().ok) {
            const void* pa = f == FpFormat::Bf16 ? static_cast<const void*>(a16.data()) : a.data();
            const void* pb = f == FpFormat::Bf16 ? static_cast<const void*>(b16.data()) : b.data();
            time_row(row, [&] { return mm.run(pa, pb, c.data()); });
        }
        finish(row);
    }
    return run;
}

}  // namespace gpulab::core
