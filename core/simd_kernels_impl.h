// The vectorised activation math, written once for a vector of W floats and compiled by each
// ISA file at its own width: W = 4 (SSE2 / NEON), 8 (AVX2 + FMA), 16 (AVX-512).
//
// One instruction works on W elements at once: that is SIMD, the second half of the fair CPU
// opponent (threads are the first). The code uses the compiler's vector extension types
// (GCC and Clang), so `a * b + c` on a vector of 16 floats becomes one vfmadd on AVX-512.
//
// exp without expf: for x <= 0, write x = k ln2 + r with k an integer and |r| <= ln2 / 2, then
//     e^x = 2^k * e^r
// where e^r comes from a degree-6 polynomial (1.2e-8 relative error) and 2^k is built directly
// in the float's exponent bits. Every activation below only needs e^x for x <= 0
// (sigmoid, tanh and GELU are rewritten around e^-|x|), so nothing can overflow; below
// ln(FLT_MIN) = -87.34 the result is flushed to 0 (error < 1.2e-38).
//
// NaN policy (same as core/hd_math.h): NaN in, NaN out. Masks come from comparisons, which are
// false for NaN, so a NaN always takes the arithmetic path and stays NaN.
//
// Accuracy against cpu-scalar (libm expf / tanhf), checked by tests/test_cpu_backends.cpp and
// tests/test_activation_math.cpp: ReLU and leaky ReLU bit-exact; sigmoid, tanh and GELU within
// abs 2e-6 + rel 1e-5 (a few units in the last place in practice).
//
// Included only by the simd_isa_*.cpp files. Everything here has internal linkage (anonymous
// namespace), so the AVX-512 copy can never replace the SSE2 copy at link time.
#pragma once

#include <cstdint>

#include "simd_kernels.h"

#if defined(__SSE2__)
#include <immintrin.h>  // streaming stores only; the math itself is plain vector arithmetic
#endif

namespace gpulab::cpu::simd_detail {
namespace {

// typedef, not `using`: GCC 12 silently drops vector_size from a dependent alias declaration
// (the static_assert below catches it).
template <int W>
struct Vec {
    typedef float F __attribute__((vector_size(W * sizeof(float))));
    static_assert(sizeof(F) == W * sizeof(float), "vector_size was ignored");
};

// The same lanes seen as raw bits, for sign and exponent tricks.
template <class F>
struct Bits {
    typedef uint32_t U __attribute__((vector_size(sizeof(F))));
    static_assert(sizeof(U) == sizeof(F), "vector_size was ignored");
};

constexpr uint32_t kSignBit = 0x80000000u;

// [SECTION] Small helpers: broadcast, bit-select, sign tricks.

template <class F>
inline F splat(float x) {
    return x - F{};  // x - 0 keeps -0 (0 + -0 would give +0)
}

// Lane by lane: mask ? a : b, where mask lanes are all ones or all zeros (a comparison result).
// GCC turns the vector ?: into one blend (a masked move on AVX-512); other compilers get the
// portable and/or/andnot form.
template <class F, class M>
inline F select(M mask, F a, F b) {
#if defined(__GNUC__) && !defined(__clang__)
    return mask ? a : b;
#else
    using U = typename Bits<F>::U;
    const U m = (U)mask;
    return (F)((m & (U)a) | (~m & (U)b));
#endif
}

template <class F>
inline F neg_abs(F x) {  // -|x|: set the sign bit (keeps NaN a NaN)
    using U = typename Bits<F>::U;
    return (F)((U)x | kSignBit);
}

template <class F>
inline F abs_v(F x) {
    using U = typename Bits<F>::U;
    return (F)((U)x & ~kSignBit);
}

// [SECTION] e^x and e^x - 1 for x <= 0 (or NaN).

constexpr float kExpMin = -87.33654475f;      // ln(FLT_MIN): smaller inputs give e^x = 0
constexpr float kLog2e = 1.44269504089f;
constexpr float kShifter = 12582912.0f;       // 1.5 * 2^23: adding it rounds to an integer in the low bits
constexpr float kLn2Hi = 0.693359375f;        // ln 2 split in two (Cody-Waite) so k * kLn2Hi is exact
constexpr float kLn2Lo = -2.12194440e-4f;

// x = k ln2 + r. Gives r, e1 = (e^r - 1) / r as a polynomial, and 2^k, so that
//   e^x     = (1 + r e1) 2^k
//   e^x - 1 = (r e1) 2^k + (2^k - 1)      (no cancellation near x = 0, where k = 0)
template <class F>
struct Reduced {
    F r, e1, scale;
};

// Inputs below kExpMin are not clamped: their k and 2^k come out as garbage (or NaN for -inf),
// and the callers replace those lanes with the exact limit afterwards. One select instead of two.
template <class F>
inline Reduced<F> reduce(F x) {
    using U = typename Bits<F>::U;
    // t = k + 1.5 * 2^23 carries k = round(x / ln2) in its low mantissa bits.
    const F t = x * kLog2e + kShifter;
    const F k = t - kShifter;
    F r = x - k * kLn2Hi;
    r = r - k * kLn2Lo;
    // (e^r - 1) / r on |r| <= ln2 / 2: degree 5, interpolated at Chebyshev nodes (near-minimax).
    // Relative error 1.2e-8, well under float's 6e-8 rounding step (the Taylor series needs
    // degree 6 for the same).
    F p = splat<F>(1.393373071e-3f);
    p = p * r + 8.369220292e-3f;
    p = p * r + 4.166646420e-2f;
    p = p * r + 1.666650461e-1f;
    p = p * r + 5.000000014e-1f;
    p = p * r + 1.0f;
    // 2^k: the biased exponent k + 127 shifted into place. For kExpMin <= x <= 0, k is in
    // [-126, 0] and the result is a normal float. The high bits of t shift out; only k survives.
    const F scale = (F)(((U)t + 127u) << 23);
    return {r, p, scale};
}

template <class F>
inline F expm1_nonpositive(F x) {
    const Reduced<F> q = reduce(x);
    return select(x < kExpMin, splat<F>(-1.0f), (q.r * q.e1) * q.scale + (q.scale - 1.0f));
}

// [SECTION] The activations.

template <class F>
inline F relu_v(F x) {
    return select(x < 0.0f, F{}, x);  // as hd::relu: -0 stays -0, NaN passes
}

template <class F>
inline F leaky_relu_v(F x, float alpha) {
    return select(x < 0.0f, x * alpha, x);
}

// sigmoid(x) = 1 / (1 + e^-x), evaluated with e = e^-|x| <= 1 so nothing overflows:
//   x >= 0: 1 / (1 + e)        x < 0: e / (1 + e)
// The x < 0 form also keeps full relative accuracy for very negative x (sigmoid(-20) = 2e-9).
// `scale` multiplies the result (1 for sigmoid, x for GELU); lanes where e^-|x| is below
// FLT_MIN get `limit_neg` (x < 0) or `scale` (x > 0) directly, so no 0 * inf can turn into NaN.
template <class F>
inline F scaled_sigmoid(F x, F scale, F limit_neg) {
    const F y = neg_abs(x);
    const Reduced<F> q = reduce(y);
    const F e = (q.r * q.e1 + 1.0f) * q.scale;  // garbage where y < kExpMin; replaced below
    const F num = select(x < 0.0f, e * scale, scale);
    const F s = num / (e + 1.0f);
    return select(y < kExpMin, select(x < 0.0f, limit_neg, scale), s);
}

template <class F>
inline F sigmoid_v(F x) {
    return scaled_sigmoid(x, splat<F>(1.0f), F{});
}

// tanh(x) = 1 - 2 / (e^2x + 1), rearranged around m = e^-2|x| - 1 in [-1, 0] so that it cannot
// overflow:  tanh(|x|) = -m / (2 + m),  then the sign of x is copied back (tanh(-0) = -0).
// Using e^y - 1 rather than e^y keeps relative accuracy near 0: with e^y, 1 - e^-2x cancels and
// tanh(1e-8) would come out as 0; with expm1 it is 1e-8 to the last bit or two.
template <class F>
inline F tanh_v(F x) {
    using U = typename Bits<F>::U;
    const F m = expm1_nonpositive(abs_v(x) * -2.0f);
    const F t = (-m) / (m + 2.0f);
    return (F)(((U)t & ~kSignBit) | ((U)x & kSignBit));
}

// GELU, the tanh approximation of core/hd_math.h:
//   0.5 x (1 + tanh(u)),  u = sqrt(2/pi) (x + 0.044715 x^3)
// Since 0.5 (1 + tanh(u)) = sigmoid(2u), this is x * sigmoid(2u): one exp, one division, and no
// cancellation for negative x. Where e^2u underflows (x below about -10) the result is -0, as in
// hd::gelu, which also makes gelu(-inf) = -0 rather than -inf * 0 = NaN.
constexpr float kGeluTwoC = 2.0f * 0.7978845608028654f;
constexpr float kGeluTwoCK = 2.0f * 0.7978845608028654f * 0.044715f;

template <class F>
inline F gelu_v(F x) {
    const F z = x * ((x * x) * kGeluTwoCK + kGeluTwoC);
    return scaled_sigmoid(z, x, splat<F>(-0.0f));
}

// [SECTION] The loop: whole vectors, then one zero-padded vector for the last n % W elements
// (the same formula everywhere, so the tail is not a different, scalar answer).

// A streaming (non-temporal) store writes a whole cache line to memory without first reading it
// into the cache (the "read for ownership" a normal store pays). For outputs far larger than the
// cache that saves a third of the memory traffic; for small outputs it would evict data that is
// about to be used, so the caller decides (see cpu_parallel.cpp). `p` must be aligned to the vector.
template <int W>
inline void store_streaming(float* p, typename Vec<W>::F v) {
#if defined(__AVX512F__)
    if constexpr (W == 16) {
        _mm512_stream_ps(p, (__m512)v);
        return;
    }
#endif
#if defined(__AVX__)
    if constexpr (W == 8) {
        _mm256_stream_ps(p, (__m256)v);
        return;
    }
#endif
#if defined(__SSE2__)
    if constexpr (W == 4) {
        _mm_stream_ps(p, (__m128)v);
        return;
    }
#endif
    __builtin_memcpy(p, &v, sizeof v);  // no streaming store on this target: a plain one
}

inline void streaming_stores_done() {
#if defined(__SSE2__)
    _mm_sfence();  // streaming stores are weakly ordered: make them visible before the caller goes on
#endif
}

template <int W, class Op>
inline void apply_partial(const float* in, float* out, int64_t m, Op op) {
    using F = typename Vec<W>::F;
    F a{};
    __builtin_memcpy(&a, in, sizeof(float) * static_cast<decltype(sizeof(float))>(m));
    a = op(a);
    __builtin_memcpy(out, &a, sizeof(float) * static_cast<decltype(sizeof(float))>(m));
}

template <int W, class Op>
inline void apply(const float* in, float* out, int64_t n, bool stream, Op op) {
    using F = typename Vec<W>::F;
    int64_t i = 0;
    const auto misaligned = reinterpret_cast<uintptr_t>(out) % sizeof(F);
    if (stream && misaligned % sizeof(float) == 0) {  // (a float* that is not even float-aligned: plain stores)
        // Peel up to W - 1 elements so that the streaming stores are aligned.
        int64_t head = misaligned == 0 ? 0 : static_cast<int64_t>((sizeof(F) - misaligned) / sizeof(float));
        head = head < n ? head : n;
        if (head > 0) apply_partial<W>(in, out, head, op);
        for (i = head; i + W <= n; i += W) {
            F a;
            __builtin_memcpy(&a, in + i, sizeof(F));
            store_streaming<W>(out + i, op(a));
        }
        streaming_stores_done();
    } else {
        for (; i + 2 * W <= n; i += 2 * W) {  // two vectors per trip: more independent work in flight
            F a, b;
            __builtin_memcpy(&a, in + i, sizeof(F));  // unaligned load: sub-ranges may start anywhere
            __builtin_memcpy(&b, in + i + W, sizeof(F));
            a = op(a);
            b = op(b);
            __builtin_memcpy(out + i, &a, sizeof(F));
            __builtin_memcpy(out + i + W, &b, sizeof(F));
        }
    }
    for (; i < n; i += W) apply_partial<W>(in + i, out + i, n - i < W ? n - i : W, op);
}

template <int W>
void activation_kernel(int op, float alpha, const float* in, float* out, int64_t n, bool stream) {
    using F = typename Vec<W>::F;
    switch (op) {
        case kOpRelu: apply<W>(in, out, n, stream, [](F x) { return relu_v(x); }); break;
        case kOpLeakyRelu: apply<W>(in, out, n, stream, [alpha](F x) { return leaky_relu_v(x, alpha); }); break;
        case kOpSigmoid: apply<W>(in, out, n, stream, [](F x) { return sigmoid_v(x); }); break;
        case kOpTanh: apply<W>(in, out, n, stream, [](F x) { return tanh_v(x); }); break;
        case kOpGelu: apply<W>(in, out, n, stream, [](F x) { return gelu_v(x); }); break;
        case kOpCopy: apply<W>(in, out, n, stream, [](F x) { return x; }); break;
        default: break;
    }
}

}  // namespace
}  // namespace gpulab::cpu::simd_detail
