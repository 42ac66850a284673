// The four number formats of the tensor-core lesson, FP32, TF32, BF16 and FP16, and the one
// rounding every other part of gpulab uses to get from a wider number into each of them.
//
//   format  bits  sign exponent mantissa  bias   largest finite      smallest normal  smallest subnormal
//   FP32     32     1     8       23      127    (2 - 2^-23) 2^127   2^-126           2^-149
//   TF32     19     1     8       10      127    (2 - 2^-10) 2^127   2^-126           2^-136
//   BF16     16     1     8        7      127    (2 - 2^-7)  2^127   2^-126           2^-133
//   FP16     16     1     5       10       15    65,504              2^-14            2^-24
//
// Rounding is IEEE 754 round-to-nearest, ties to even, done ONCE from the exact input (a double or
// a float): subnormals kept, a value past the largest finite number by half a step or more goes to
// infinity, infinities stay, NaN stays NaN (quiet, payload's top bits kept). Integer arithmetic
// only, so every machine gives the same bits. TF32 is NVIDIA's 19-bit format (FP32's exponent,
// FP16's mantissa), kept in a 32-bit register on the GPU; rounding to it here is RNE too. The GPU's
// own conversion instruction (cvt.rna.tf32.f32) rounds ties away from zero, and what tensor cores
// do inside is not documented: this is a model of IEEE rounding, not of a tensor core.
//
// Verified by tests/test_fp_formats.cpp: worked examples computed by hand (each commented), every
// FP16 bit pattern decoded and re-encoded, and millions of floats against the CPU's own F16C
// conversion (VCVTPS2PH, round to nearest even) where the CPU has it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gpulab::core {

enum class FpFormat { Fp32, Tf32, Bf16, Fp16 };
inline constexpr FpFormat kAllFormats[] = {FpFormat::Fp32, FpFormat::Tf32, FpFormat::Bf16, FpFormat::Fp16};

struct FormatSpec {
    FpFormat format;
    const char* label;  // "FP32"
    const char* id;     // "fp32", as the command line and lesson files spell it
    int exponent_bits;
    int mantissa_bits;  // stored fraction bits; significant bits are one more (the hidden 1)
    int bias() const { return (1 << (exponent_bits - 1)) - 1; }
    int total_bits() const { return 1 + exponent_bits + mantissa_bits; }
};

const FormatSpec& format_spec(FpFormat f);
inline const char* format_label(FpFormat f) { return format_spec(f).label; }
inline const char* format_id(FpFormat f) { return format_spec(f).id; }
// "fp32", "tf32", "bf16", "fp16" (case-insensitive); nullopt otherwise.
std::optional<FpFormat> parse_format(std::string_view text);

// [SECTION] the rounding: one function for every format

// The bit pattern of `x` rounded to nearest (ties to even) in `f`, right-aligned in the result
// (FP16 and BF16 use the low 16 bits, TF32 the low 19, FP32 all 32).
uint32_t encode(FpFormat f, double x);
// The exact value of a bit pattern of `f`.
double decode(FpFormat f, uint32_t bits);
// What `x` becomes when stored in `f` and read back: decode(f, encode(f, x)).
double round_to(FpFormat f, double x);
float round_to(FpFormat f, float x);

// The named conversions, all through encode/decode above.
inline uint16_t fp16_bits(float x) { return static_cast<uint16_t>(encode(FpFormat::Fp16, x)); }
inline uint16_t bf16_bits(float x) { return static_cast<uint16_t>(encode(FpFormat::Bf16, x)); }
inline float fp16_value(uint16_t bits) { return static_cast<float>(decode(FpFormat::Fp16, bits)); }
inline float bf16_value(uint16_t bits) { return static_cast<float>(decode(FpFormat::Bf16, bits)); }
inline float round_fp16(float x) { return round_to(FpFormat::Fp16, x); }
inline float round_bf16(float x) { return round_to(FpFormat::Bf16, x); }
inline float round_tf32(float x) { return round_to(FpFormat::Tf32, x); }

// One multiply-add of the lesson's model of mixed precision: a and b already hold values of their
// input format, their product is exact (at most 2 x 24 significant bits fit a double's 53), and
// product + c is rounded once into `accumulate`: std::fma for FP32, round_to for the narrow
// formats (exact in double except when the two terms lie more than ~30 binades apart).
float multiply_add(FpFormat accumulate, float a, float b, float c);

// [SECTION] what the lesson shows of a number

enum class FpClass { Zero, Subnormal, Normal, Infinite, NaN };
const char* class_name(FpClass c);  // "zero", "subnormal", ...

struct BitFields {
    FpFormat format = FpFormat::Fp32;
    uint32_t bits = 0;
    uint32_t sign = 0;
    uint32_t exponent = 0;  // the stored (biased) field
    uint32_t mantissa = 0;  // the stored fraction field
    FpClass cls = FpClass::Zero;
    int power = 0;          // the power of two of the leading bit (normal: exponent - bias; subnormal: 1 - bias)
    double value = 0.0;     // what the bits mean
};
BitFields bit_fields(FpFormat f, double x);

struct FormatRange {
    double max_finite = 0;
    double min_normal = 0;
    double min_subnormal = 0;
    double epsilon = 0;     // the step between 1 and the next number up: 2^-mantissa_bits
    int significant_bits = 0;
};
FormatRange format_range(FpFormat f);
// The distance from the stored value of `x` (round_to) to the next representable number away from
// zero: the step the format takes at that size. NaN for infinities and NaN.
double step_at(FpFormat f, double x);

}  // namespace gpulab::core
