// The rounding into FP32, TF32, BF16 and FP16 (core/ops/fp_formats.h): worked examples computed by
// hand (the arithmetic is in the comment beside each), every FP16 bit pattern round-tripped, and,
// where the CPU has them, millions of values against its own conversion instructions: F16C's
// VCVTPS2PH (float to FP16, round to nearest even, subnormals kept) and AVX512_BF16's
// VCVTNEPS2BF16 (float to BF16, round to nearest even; it flushes subnormals, so only normal
// inputs are compared).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ops/fp_formats.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace gpulab::core;

namespace {

uint32_t float_bits(float x) {
    uint32_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

float float_from(uint32_t b) {
    float x = 0;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

// A reproducible spread of float bit patterns (splitmix64).
uint64_t next(uint64_t& s) {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) uint16_t f16c_encode(float x) {
    return static_cast<uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
__attribute__((target("f16c"))) float f16c_decode(uint16_t h) { return _cvtsh_ss(h); }
__attribute__((target("avx512bf16,avx512vl"))) uint16_t avx512_bf16_encode(float x) {
    const __m128bh v = _mm_cvtneps_pbh(_mm_set1_ps(x));
    uint16_t out[8];
    std::memcpy(out, &v, sizeof out);
    return out[0];
}
#endif

}  // namespace

TEST_SUITE("fp_formats") {
    TEST_CASE("the four formats' fields and ranges") {
        CHECK(format_spec(FpFormat::Fp16).total_bits() == 16);
        CHECK(format_spec(FpFormat::Bf16).total_bits() == 16);
        CHECK(format_spec(FpFormat::Tf32).total_bits() == 19);
        CHECK(format_spec(FpFormat::Fp32).total_bits() == 32);
        CHECK(format_spec(FpFormat::Fp16).bias() == 15);
        CHECK(format_spec(FpFormat::Bf16).bias() == 127);
        // FP16: (2 - 2^-10) * 2^15 = 65,504; smallest normal 2^-14, smallest subnormal 2^-24.
        CHECK(format_range(FpFormat::Fp16).max_finite == 65504.0);
        CHECK(format_range(FpFormat::Fp16).min_normal == std::ldexp(1.0, -14));
        CHECK(format_range(FpFormat::Fp16).min_subnormal == std::ldexp(1.0, -24));
        // BF16 keeps FP32's exponent: (2 - 2^-7) * 2^127 = 3.3895313892515355e38, smallest normal 2^-126.
        CHECK(format_range(FpFormat::Bf16).max_finite == doctest::Approx(3.3895313892515355e38).epsilon(1e-15));
        CHECK(format_range(FpFormat::Bf16).min_normal == std::ldexp(1.0, -126));
        CHECK(format_range(FpFormat::Bf16).min_subnormal == std::ldexp(1.0, -133));
        CHECK(format_range(FpFormat::Tf32).min_subnormal == std::ldexp(1.0, -136));
        // FP32's largest float is std::numeric_limits' own.
        CHECK(format_range(FpFormat::Fp32).max_finite == static_cast<double>(std::numeric_limits<float>::max()));
        CHECK(format_range(FpFormat::Fp32).epsilon == static_cast<double>(std::numeric_limits<float>::epsilon()));
        CHECK(format_range(FpFormat::Bf16).epsilon == 1.0 / 128);
        CHECK(format_range(FpFormat::Fp16).significant_bits == 11);
        CHECK(parse_format("BF16") == FpFormat::Bf16);
        CHECK(parse_format("tf32") == FpFormat::Tf32);
        CHECK_FALSE(parse_format("fp8").has_value());
    }

    TEST_CASE("FP16 worked examples") {
        CHECK(fp16_bits(1.0f) == 0x3C00);   // exponent 0 + 15 = 01111, fraction 0
        CHECK(fp16_bits(-2.0f) == 0xC000);  // sign 1, exponent 1 + 15 = 10000
        // 0.1 = 1.6 x 2^-4: exponent -4 + 15 = 01011; fraction 0.6 x 1024 = 614.4 -> 614 = 0x266;
        // 0 01011 1001100110 = 0x2E66, which is 1638 / 16384 = 0.0999755859375.
        CHECK(fp16_bits(0.1f) == 0x2E66);
        CHECK(fp16_value(0x2E66) == 0.0999755859375f);
        // 1/3 = 1.333 x 2^-2: exponent 13 = 01101; fraction 341.33 -> 341 = 0x155: 0x3555 = 1365/4096.
        CHECK(fp16_bits(1.0f / 3.0f) == 0x3555);
        CHECK(fp16_value(0x3555) == 0.333251953125f);
        // The largest finite number, 0 11110 1111111111 = 65,504.
        CHECK(fp16_bits(65504.0f) == 0x7BFF);
        // Halfway to 65,536 is 65,520: below rounds down to 65,504, the tie goes to the even
        // neighbour, 65,536 = 2^16, past the largest exponent: infinity.
        CHECK(fp16_bits(65519.0f) == 0x7BFF);
        CHECK(fp16_bits(65520.0f) == 0x7C00);
        CHECK(fp16_bits(1e5f) == 0x7C00);
        CHECK(fp16_bits(-1e5f) == 0xFC00);
        // Ties to even at 1: 1 + 2^-11 lies halfway between 1 (fraction 0, even) and 1 + 2^-10: 1.
        CHECK(fp16_bits(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);
        // 1 + 3 x 2^-11 lies halfway between 1 + 2^-10 (fraction 1, odd) and 1 + 2^-9 (2, even).
        CHECK(fp16_bits(1.0f + 3.0f * std::ldexp(1.0f, -11)) == 0x3C02);
        // Smallest normal 2^-14 = 0x0400; smallest subnormal 2^-24 = 0x0001.
        CHECK(fp16_bits(std::ldexp(1.0f, -14)) == 0x0400);
        CHECK(fp16_bits(std::ldexp(1.0f, -24)) == 0x0001);
        // 1e-6 is 16.777216 steps of 2^-24: rounds to 17 steps, 0x0011 = 1.0132789611816406e-6.
        CHECK(fp16_bits(1e-6f) == 0x0011);
        CHECK(fp16_value(0x0011) == static_cast<float>(17.0 * std::ldexp(1.0, -24)));
        // 2^-25 is half the smallest subnormal: the tie goes to 0 (even); 1.5 x 2^-25 goes up to 2^-24.
        CHECK(fp16_bits(std::ldexp(1.0f, -25)) == 0x0000);
        CHECK(fp16_bits(1.5f * std::ldexp(1.0f, -25)) == 0x0001);
        CHECK(fp16_bits(-std::ldexp(1.0f, -30)) == 0x8000);  // underflow keeps the sign: -0
        // Just below 2^-14 rounds up into the smallest normal number (the subnormal carry).
        CHECK(fp16_bits(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -26)) == 0x0400);
        // Infinity and NaN stay what they are; a NaN comes back quiet.
        CHECK(fp16_bits(std::numeric_limits<float>::infinity()) == 0x7C00);
        CHECK(fp16_bits(std::numeric_limits<float>::quiet_NaN()) == 0x7E00);
        CHECK(std::isnan(round_fp16(std::numeric_limits<float>::quiet_NaN())));
        // A signalling NaN whose payload sits only in bits FP16 drops must not become infinity.
        CHECK(std::isnan(round_fp16(float_from(0x7F800001u))));
    }

    TEST_CASE("BF16 worked examples") {
        CHECK(bf16_bits(1.0f) == 0x3F80);  // FP32's top 16 bits
        // 0.1f = 0x3DCCCCCD: the dropped half 0xCCCD is above 0x8000, so the kept half rounds up:
        // 0x3DCD, which is 0.10009765625.
        CHECK(bf16_bits(0.1f) == 0x3DCD);
        CHECK(bf16_value(0x3DCD) == 0.10009765625f);
        // pi = 0x40490FDB: dropped 0x0FDB is below half: 0x4049 = 3.140625.
        CHECK(bf16_bits(3.14159265f) == 0x4049);
        CHECK(bf16_value(0x4049) == 3.140625f);
        // 65,504 = 0x477FE000: dropped 0xE000 above half: 0x4780 = 65,536 (BF16 has FP32's range).
        CHECK(bf16_bits(65504.0f) == 0x4780);
        // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even, 1.
        CHECK(bf16_bits(1.0f + std::ldexp(1.0f, -8)) == 0x3F80);
        // FP32's largest number rounds past BF16's largest (0x7F7F): infinity.
        CHECK(bf16_bits(std::numeric_limits<float>::max()) == 0x7F80);
        CHECK(bf16_bits(-std::numeric_limits<float>::infinity()) == 0xFF80);
        CHECK(std::isnan(round_bf16(float_from(0x7F800001u))));
    }

    TEST_CASE("TF32 and FP32 worked examples") {
        // 0.1f: fraction 0x4CCCCD; its top 10 bits 0x266, the dropped 13 bits 0xCCD < 0x1000 (half):
        // 0x266 with exponent 123: (123 << 10) | 0x266 = 0x1EE66, the same value as FP16's 0.1.
        CHECK(encode(FpFormat::Tf32, 0.1f) == 0x1EE66u);
        CHECK(round_tf32(0.1f) == 0.0999755859375f);
        // TF32 keeps subnormals: 1e-40 is 8.71 steps of 2^-136, so 9 steps: bits 9.
        CHECK(encode(FpFormat::Tf32, 1e-40) == 9u);
        CHECK(decode(FpFormat::Tf32, 9) == 9.0 * std::ldexp(1.0, -136));
        // FP32's largest number has an all-ones fraction: rounding to 10 bits carries into the
        // exponent, which becomes all ones: infinity.
        CHECK(std::isinf(round_tf32(std::numeric_limits<float>::max())));
        // FP32 from a double is the usual float conversion: 0.1 -> 0x3DCCCCCD; 1e-45 is 0.71 steps of 2^-149: 1 step.
        CHECK(encode(FpFormat::Fp32, 0.1) == 0x3DCCCCCDu);
        CHECK(encode(FpFormat::Fp32, 1e-45) == 1u);
        CHECK(encode(FpFormat::Fp32, 1e39) == 0x7F800000u);
        // A float is already FP32: unchanged, signs of zero included.
        CHECK(float_bits(round_to(FpFormat::Fp32, -0.0f)) == 0x80000000u);
        uint64_t s = 7;
        for (int i = 0; i < 100000; ++i) {
            const float x = float_from(static_cast<uint32_t>(next(s)));
            if (std::isnan(x)) continue;
            CHECK_MESSAGE(float_bits(round_to(FpFormat::Fp32, x)) == float_bits(x), "x bits " << float_bits(x));
            CHECK(encode(FpFormat::Fp32, static_cast<double>(x)) == float_bits(x));
        }
    }

    TEST_CASE("double inputs are rounded once") {
        // 1 + 2^-11 + 2^-40 is just above the FP16 tie at 1 + 2^-11: one rounding goes up to
        // 1 + 2^-10. Rounding to FP32 first would lose the 2^-40 and land on the tie, then on 1.
        const double x = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
        CHECK(round_to(FpFormat::Fp16, x) == 1.0 + std::ldexp(1.0, -10));
        CHECK(round_to(FpFormat::Fp16, static_cast<double>(static_cast<float>(x))) == 1.0);
    }

    TEST_CASE("every FP16 bit pattern decodes and encodes back to itself") {
        for (uint32_t h = 0; h < 0x10000u; ++h) {
            const float v = fp16_value(static_cast<uint16_t>(h));
            if (std::isnan(v)) {
                // NaN comes back NaN with its payload, quiet.
                CHECK((fp16_bits(v) & 0x7C00u) == 0x7C00u);
                CHECK((fp16_bits(v) & 0x03FFu) != 0u);
                continue;
            }
            CHECK_MESSAGE(fp16_bits(v) == h, "pattern " << h);
        }
        for (uint32_t b = 0; b < 0x10000u; ++b) {
            const float v = bf16_value(static_cast<uint16_t>(b));
            // BF16 is FP32's top half, so its value is those bits with zeros below.
            if (!std::isnan(v)) CHECK(float_bits(v) == (b << 16));
        }
    }

    TEST_CASE("bit fields of a typed number") {
        const BitFields f = bit_fields(FpFormat::Fp16, 0.1);
        CHECK(f.sign == 0u);
        CHECK(f.exponent == 11u);   // -4 + 15
        CHECK(f.mantissa == 614u);  // 0x266
        CHECK(f.power == -4);
        CHECK(f.cls == FpClass::Normal);
        CHECK(bit_fields(FpFormat::Fp16, 1e-6).cls == FpClass::Subnormal);
        CHECK(bit_fields(FpFormat::Fp16, 1e-6).power == -14);
        CHECK(bit_fields(FpFormat::Fp16, 70000.0).cls == FpClass::Infinite);
        CHECK(bit_fields(FpFormat::Bf16, 70000.0).cls == FpClass::Normal);
        CHECK(bit_fields(FpFormat::Bf16, -0.0).sign == 1u);
        CHECK(bit_fields(FpFormat::Tf32, std::nan("")).cls == FpClass::NaN);
        // The step at a value: 1000 lies in [512, 1024) = 2^9: FP16 steps by 2^(9-10) = 0.5, BF16 by
        // 2^(9-7) = 4, TF32 by 0.5, FP32 by 2^(9-23).
        CHECK(step_at(FpFormat::Fp16, 1000.0) == 0.5);
        CHECK(step_at(FpFormat::Bf16, 1000.0) == 4.0);
        CHECK(step_at(FpFormat::Tf32, 1000.0) == 0.5);
        CHECK(step_at(FpFormat::Fp32, 1000.0) == std::ldexp(1.0, -14));
        CHECK(step_at(FpFormat::Fp16, 0.0) == std::ldexp(1.0, -24));
        CHECK(step_at(FpFormat::Fp16, 1e-6) == std::ldexp(1.0, -24));  // subnormals step evenly
        CHECK(std::isnan(step_at(FpFormat::Fp16, 1e6)));  // infinity has no step
    }

    TEST_CASE("multiply-add rounds once into the accumulator") {
        // FP32 accumulator: 2048 + 1 x 1 = 2049 exactly.
        CHECK(multiply_add(FpFormat::Fp32, 1.0f, 1.0f, 2048.0f) == 2049.0f);
        // FP16 accumulator: at 2048 FP16 steps by 2, and 2049 is the tie between 2048 (even
        // fraction) and 2050: the sum stays 2048. Adding ones never gets past it (stagnation).
        CHECK(multiply_add(FpFormat::Fp16, 1.0f, 1.0f, 2048.0f) == 2048.0f);
        // BF16 steps by 2 already at 256.
        CHECK(multiply_add(FpFormat::Bf16, 1.0f, 1.0f, 256.0f) == 256.0f);
        CHECK(multiply_add(FpFormat::Bf16, 1.0f, 1.0f, 255.0f) == 256.0f);
        // FP16 overflow while accumulating is infinity, and infinity + -infinity is NaN (IEEE).
        CHECK(std::isinf(multiply_add(FpFormat::Fp16, 300.0f, 300.0f, 0.0f)));
        CHECK(std::isnan(multiply_add(FpFormat::Fp16, -1.0f, 1.0f, std::numeric_limits<float>::infinity()) *
                         0.0f));
        // The product is exact before the single rounding: (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 rounds in
        // FP16 to 1 + 2^-9 (the 2^-20 is far below half a step).
        const float a = 1.0f + std::ldexp(1.0f, -10);
        CHECK(multiply_add(FpFormat::Fp16, a, a, 0.0f) == 1.0f + std::ldexp(1.0f, -9));
    }

#if defined(__x86_64__)
    TEST_CASE("FP16 rounding equals the CPU's F16C conversion") {
        if (!__builtin_cpu_supports("f16c")) {
            MESSAGE("this CPU has no F16C: compared with the worked examples only");
            return;
        }
        for (uint32_t h = 0; h < 0x10000u; ++h) {
            const float ours = fp16_value(static_cast<uint16_t>(h));
            const float cpu = f16c_decode(static_cast<uint16_t>(h));
            if (std::isnan(cpu)) CHECK(std::isnan(ours));
            else CHECK_MESSAGE(float_bits(ours) == float_bits(cpu), "pattern " << h);
        }
        uint64_t s = 1;
        int mismatches = 0;
        for (int i = 0; i < 4'000'000; ++i) {
            // Half random bit patterns (every exponent), half values near FP16's range, where the
            // subnormal and overflow edges are.
            const uint32_t r = static_cast<uint32_t>(next(s));
            const float x = (i & 1) != 0 ? float_from(r)
                                         : std::ldexp(static_cast<float>(r & 0xFFFFFF) / 16777216.0f,
                                                      static_cast<int>((r >> 24) % 48) - 30) * ((r >> 31) ? -1.0f : 1.0f);
            if (std::isnan(x)) continue;
            if (fp16_bits(x) != f16c_encode(x)) ++mismatches;
        }
        CHECK(mismatches == 0);
    }

    TEST_CASE("BF16 rounding equals the CPU's AVX512_BF16 conversion for normal numbers") {
        if (!__builtin_cpu_supports("avx512bf16") || !__builtin_cpu_supports("avx512vl")) {
            MESSAGE("this CPU has no AVX512_BF16: compared with the worked examples only");
            return;
        }
        uint64_t s = 3;
        int mismatches = 0, compared = 0;
        for (int i = 0; i < 4'000'000; ++i) {
            const float x = float_from(static_cast<uint32_t>(next(s)));
            if (!std::isnormal(x)) continue;  // the instruction flushes subnormals and quiets NaNs its own way
            ++compared;
            if (bf16_bits(x) != avx512_bf16_encode(x)) ++mismatches;
        }
        CHECK(compared > 3'000'000);
        CHECK(mismatches == 0);
    }
#endif
}
