// Names, the BF16 and TF32 rounding of a buffer and the counted update of compute_precision.h.
#include "compute_precision.h"

#include <atomic>
#include <cctype>
#include <cstring>

#include "backends/simd/gemm_bf16.h"
#include "engine.h"
#include "io/image_io.h"
#include "ops/fp_formats.h"
#include "runtime/thread_pool.h"

namespace gpulab::train {

const char* precision_id(ComputePrecision p) {
    switch (p) {
        case ComputePrecision::Fp32: return "fp32";
        case ComputePrecision::Tf32: return "tf32";
        case ComputePrecision::Fp16Mixed: return "fp16-mixed";
        case ComputePrecision::Bf16Mixed: return "bf16-mixed";
        case ComputePrecision::Bf16Pure: return "bf16-pure";
    }
    return "fp32";
}

const char* precision_label(ComputePrecision p) {
    switch (p) {
        case ComputePrecision::Fp32: return "FP32";
        case ComputePrecision::Tf32: return "TF32 products (inputs rounded to 10 mantissa bits), FP32 sums and weights";
        case ComputePrecision::Fp16Mixed: return "FP16 products, FP32 master weights, loss scaling";
        case ComputePrecision::Bf16Mixed: return "BF16 products, FP32 master weights";
        case ComputePrecision::Bf16Pure: return "BF16 products, BF16 weights";
    }
    return "FP32";
}

const char* precision_short_label(ComputePrecision p) {
    switch (p) {
        case ComputePrecision::Fp32: return "FP32";
        case ComputePrecision::Tf32: return "TF32";
        case ComputePrecision::Fp16Mixed: return "FP16 mixed";
        case ComputePrecision::Bf16Mixed: return "BF16 mixed";
        case ComputePrecision::Bf16Pure: return "BF16 pure";
    }
    return "FP32";
}

ComputePrecision parse_compute_precision(std::string_view text) {
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const ComputePrecision p : kEveryComputePrecision)
        if (lower == precision_id(p)) return p;
    throw core::InputError("'" + std::string(text) +
                           "' is not a compute precision: write fp32, tf32 (TF32 products, FP32 sums and weights), "
                           "bf16-mixed (BF16 products, FP32 master weights), bf16-pure (BF16 weights too) or fp16-mixed "
                           "(FP16 products, FP32 master weights, loss scaling)");
}

void round_bf16_in_place(float* x, std::int64_t n) {
    // Through the packer's rounding (vectorised where the CPU has AVX512_BF16, else core::bf16_bits),
    // a block at a time: a BF16 value's bits are the top half of its float's.
    constexpr std::int64_t kBlock = 1024;
    std::uint16_t bits[kBlock];
    for (std::int64_t at = 0; at < n; at += kBlock) {
        const std::int64_t len = n - at < kBlock ? n - at : kBlock;
        cpu::round_to_bf16_bits(x + at, bits, len);
        for (std::int64_t i = 0; i < len; ++i) {
            const std::uint32_t word = static_cast<std::uint32_t>(bits[i]) << 16;
            std::memcpy(x + at + i, &word, sizeof word);
        }
    }
}

void round_tf32_in_place(float* x, std::int64_t n) {
    // No packer rounds to TF32 (a format of the GPU's tensor cores, kept in 32-bit words): the one
    // rounding of fp_formats.h, on the calling thread like round_bf16_in_place (cpu-scalar stays on
    // one core; cpu-parallel calls it from each slice's thread).
    for (std::int64_t i = 0; i < n; ++i) x[i] = core::round_tf32(x[i]);
}

void round_fp16_in_place(float* x, std::int64_t n) {
    // The one rounding of fp_formats.h (F16C where the CPU has it), on the calling thread like
    // round_tf32_in_place.
    for (std::int64_t i = 0; i < n; ++i) x[i] = core::round_fp16(x[i]);
}

void round_product_inputs_in_place(ComputePrecision p, float* x, std::int64_t n) {
    switch (p) {
        case ComputePrecision::Fp32: return;
        case ComputePrecision::Tf32: round_tf32_in_place(x, n); return;
        case ComputePrecision::Fp16Mixed: round_fp16_in_place(x, n); return;
        case ComputePrecision::Bf16Mixed:
        case ComputePrecision::Bf16Pure: round_bf16_in_place(x, n); return;
    }
}

void sgd_step_counted(ComputePrecision p, std::int64_t count, const Sgd& sgd, float* w, float* v, const float* g,
                      UpdateCounts& counts) {
    const float mu = sgd.momentum, rate = sgd.learning_rate;
    std::atomic<std::int64_t> nonzero{0}, lost{0}, below{0};
    cpu::ThreadPool::shared().parallel_for(count, [&](std::int64_t b, std::int64_t e) {
        std::int64_t n = 0, l = 0, bl = 0;
        for (std::int64_t i = b; i < e; ++i) {
            const float before = w[i];
            if (p == ComputePrecision::Bf16Pure) {
                // g arrives as an FP32 sum; a BF16 model's gradient is stored in BF16.
                v[i] = core::round_bf16(mu * v[i] - rate * core::round_bf16(g[i]));
                w[i] = core::round_bf16(w[i] + v[i]);
            } else {
                v[i] = mu * v[i] - rate * g[i];
                w[i] += v[i];
            }
            if (v[i] == 0.0f) continue;
            ++n;
            l += w[i] == before;
            bl += p == ComputePrecision::Tf32        ? core::round_tf32(w[i]) == core::round_tf32(before)
                  : p == ComputePrecision::Fp16Mixed ? core::round_fp16(w[i]) == core::round_fp16(before)
                                                     : core::round_bf16(w[i]) == core::round_bf16(before);
        }
        nonzero += n;
        lost += l;
        below += bl;
    });
    ++counts.steps;
    counts.nonzero += nonzero;
    counts.lost += lost;
    counts.below_bf16 += below;
}

}  // namespace gpulab::train
