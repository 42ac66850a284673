// The rounding into FP32, TF32, BF16 and FP16 (see fp_formats.h). One generic routine serves all
// four: a double is taken apart into an integer significand and a power of two, the target's step
// at that size is found (its quantum), the significand is shifted down to that step with
// round-to-nearest-even, and the result is packed into the target's fields. Working from a
// double means float inputs (exactly representable in double) and the lesson's exact
// product-plus-accumulator sums (multiply_add) are both rounded once, never twice.
#include "fp_formats.h"

#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace gpulab::core {

namespace {

constexpr FormatSpec kSpecs[] = {
    {FpFormat::Fp32, "FP32", "fp32", 8, 23},
    {FpFormat::Tf32, "TF32", "tf32", 8, 10},
    {FpFormat::Bf16, "BF16", "bf16", 8, 7},
    {FpFormat::Fp16, "FP16", "fp16", 5, 10},
};

uint64_t bits_of(double x) {
    uint64_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

double double_of(uint64_t b) {
    double x = 0;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

// n * 2^q as a double, for 0 < n < 2^24 and q >= -160: every value of the four formats is a normal
// double, so the fields are built directly (no libm call on the hot path of the lesson's sweeps).
double scaled(uint64_t n, int q) {
    const int top = 63 - std::countl_zero(n);  // the leading bit's position in n
    const uint64_t exponent = static_cast<uint64_t>(top + q + 1023);
    const uint64_t fraction = (n << (52 - top)) & ((uint64_t{1} << 52) - 1);
    return double_of((exponent << 52) | fraction);
}

}  // namespace

const FormatSpec& format_spec(FpFormat f) { return kSpecs[static_cast<int>(f)]; }

std::optional<FpFormat> parse_format(std::string_view text) {
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const FormatSpec& s : kSpecs)
        if (lower == s.id) return s.format;
    return std::nullopt;
}

uint32_t encode(FpFormat f, double x) {
    const FormatSpec& s = format_spec(f);
    const int E = s.exponent_bits, M = s.mantissa_bits, B = s.bias();
    const uint32_t all_ones_exponent = (1u << E) - 1;
    const uint64_t in = bits_of(x);
    const uint32_t sign = static_cast<uint32_t>(in >> 63) << (E + M);
    const uint64_t magnitude = in & ~(uint64_t{1} << 63);
    const uint64_t field = magnitude >> 52;
    const uint64_t fraction = magnitude & ((uint64_t{1} << 52) - 1);

    if (field == 0x7ff) {
        if (fraction == 0) return sign | (all_ones_exponent << M);  // infinity stays infinity
        // NaN stays NaN: the payload's top bits, with the quiet bit set so it cannot become infinity.
        const uint32_t payload = static_cast<uint32_t>(fraction >> (52 - M)) | (1u << (M - 1));
        return sign | (all_ones_exponent << M) | payload;
    }
    // x = significand * 2^power, significand an integer.
    const uint64_t significand = field == 0 ? fraction : fraction | (uint64_t{1} << 52);
    if (significand == 0) return sign;  // +0 or -0
    const int power = field == 0 ? -1074 : static_cast<int>(field) - 1075;
    const int lead = 63 - std::countl_zero(significand) + power;  // the power of x's leading bit

    // The target's step at this size: 2^(lead - M) for normal numbers, never finer than the
    // subnormal step 2^(1 - B - M).
    int quantum = std::max(lead, 1 - B) - M;
    const int shift = quantum - power;  // > 0: the target never has more bits than a double
    uint64_t n = 0;
    if (shift < 64) {
        n = significand >> shift;
        const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
        const uint64_t half = uint64_t{1} << (shift - 1);
        if (rest > half || (rest == half && (n & 1) != 0)) ++n;  // nearest, ties to even
    }  // else: below half the smallest subnormal, so zero (a double's significand is under 2^53)
    if (n == (uint64_t{1} << (M + 1))) {  // rounding carried into the next power of two
        n >>= 1;
        ++quantum;
    }
    if (n >= (uint64_t{1} << M)) {  // normal
        const int exponent = quantum + M + B;
        if (exponent >= static_cast<int>(all_ones_exponent)) return sign | (all_ones_exponent << M);  // overflow
        return sign | (static_cast<uint32_t>(exponent) << M) | static_cast<uint32_t>(n - (uint64_t{1} << M));
    }
    // Subnormal (exponent field 0) or zero; a carry up to 2^M is the smallest normal number and
    // is already encoded correctly by n itself.
    return sign | static_cast<uint32_t>(n);
}

double decode(FpFormat f, uint32_t bits) {
    const FormatSpec& s = format_spec(f);
    const int E = s.exponent_bits, M = s.mantissa_bits, B = s.bias();
    const bool negative = ((bits >> (E + M)) & 1u) != 0;
    const uint32_t exponent = (bits >> M) & ((1u << E) - 1);
    const uint32_t mantissa = bits & ((1u << M) - 1);
    double v = 0.0;
    if (exponent == (1u << E) - 1) {
        if (mantissa == 0) {
            v = std::numeric_limits<double>::infinity();
        } else {
            v = double_of((uint64_t{0x7ff} << 52) | (uint64_t{mantissa} << (52 - M)));
        }
    } else if (exponent == 0) {
        v = mantissa == 0 ? 0.0 : scaled(mantissa, 1 - B - M);
    } else {
        v = scaled(mantissa | (1u << M), static_cast<int>(exponent) - B - M);
    }
    return negative ? -v : v;
}

double round_to(FpFormat f, double x) { return decode(f, encode(f, x)); }

float round_to(FpFormat f, float x) {
    // Every value of the four formats is a float, so the conversion back is exact.
    return static_cast<float>(decode(f, encode(f, static_cast<double>(x))));
}

float multiply_add(FpFormat accumulate, float a, float b, float c) {
    if (accumulate == FpFormat::Fp32) return std::fma(a, b, c);
    const double exact_product = static_cast<double>(a) * static_cast<double>(b);
    return static_cast<float>(round_to(accumulate, exact_product + static_cast<double>(c)));
}

// [SECTION] fields, range, step

const char* class_name(FpClass c) {
    switch (c) {
        case FpClass::Zero: return "zero";
        case FpClass::Subnormal: return "subnormal";
        case FpClass::Normal: return "normal";
        case FpClass::Infinite: return "infinity";
        case FpClass::NaN: return "NaN";
    }
    return "?";
}

BitFields bit_fields(FpFormat f, double x) {
    const FormatSpec& s = format_spec(f);
    BitFields b;
    b.format = f;
    b.bits = encode(f, x);
    b.sign = (b.bits >> (s.exponent_bits + s.mantissa_bits)) & 1u;
    b.exponent = (b.bits >> s.mantissa_bits) & ((1u << s.exponent_bits) - 1);
    b.mantissa = b.bits & ((1u << s.mantissa_bits) - 1);
    b.value = decode(f, b.bits);
    const uint32_t top = (1u << s.exponent_bits) - 1;
    if (b.exponent == top) {
        b.cls = b.mantissa == 0 ? FpClass::Infinite : FpClass::NaN;
    } else if (b.exponent == 0) {
        b.cls = b.mantissa == 0 ? FpClass::Zero : FpClass::Subnormal;
        b.power = 1 - s.bias();
    } else {
        b.cls = FpClass::Normal;
        b.power = static_cast<int>(b.exponent) - s.bias();
    }
    return b;
}

FormatRange format_range(FpFormat f) {
    const FormatSpec& s = format_spec(f);
    const int M = s.mantissa_bits, B = s.bias();
    const int max_exponent = (1 << s.exponent_bits) - 2 - B;
    FormatRange r;
    r.max_finite = std::ldexp(2.0 - std::ldexp(1.0, -M), max_exponent);
    r.min_normal = std::ldexp(1.0, 1 - B);
    r.min_subnormal = std::ldexp(1.0, 1 - B - M);
    r.epsilon = std::ldexp(1.0, -M);
    r.significant_bits = M + 1;
    return r;
}

double step_at(FpFormat f, double x) {
    const BitFields b = bit_fields(f, x);
    if (b.cls == FpClass::Infinite || b.cls == FpClass::NaN) return std::numeric_limits<double>::quiet_NaN();
    if (b.cls == FpClass::Zero) return format_range(f).min_subnormal;
    return std::ldexp(1.0, b.power - format_spec(f).mantissa_bits);
}

}  // namespace gpulab::core
