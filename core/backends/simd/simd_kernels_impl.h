// The vectorised activation math, written once for a vector of W floats and compiled by each
// ISA file at its own width: W = 4 (SSE2 / NEON), 8 (AVX2 + FMA), 16 (AVX-512).
//
// One instruction works on W elements at once: that is SIMD, the second half of the fair CPU
// opponent (threads are the first). The code uses the compiler's vector extension types
// (GCC and Clang), so `a * b + c` on a vector of 16 floats becomes one vfmadd on AVX-512.
//
// exp without expf: for x <= 0, write t = x log2(e) = k + f with k an integer and |f| <= 1/2, then
//     e^x = 2^k * 2^f
// where 2^f comes from a degree-5 polynomial (2e-7 relative error) and 2^k is built directly in
// the float's exponent bits. Every activation below only needs e^x for x <= 0 (sigmoid, tanh and
// GELU are rewritten around e^-|x|), so nothing can overflow; t is clamped at -127, where 2^k is
// exactly 0, so results below 2^-126 flush to 0 (error < 1.2e-38) with no special-case lanes.
//
// Cost matters most on AVX2 (issue 17): there the exp-based activations are bound by the two
// vector pipes that do multiplies, FMAs, compares and blends, not by memory, so the code keeps
// those operations few: the base-2 split (one multiply instead of three FMAs), no limit selects,
// a blend on the sign bit instead of compare + blend. Tried and measured slower on the AMD EPYC
// dev box: Estrin's scheme for the polynomial (the loop is throughput-bound, not latency-bound),
// and rcp + one Newton step instead of the division (three more FMA-pipe operations than the
// divider's one).
//
// NaN policy (same as core/ops/hd_math.h): NaN in, NaN out. Masks come from comparisons, which are
// false for NaN, so a NaN always takes the arithmetic path and stays NaN.
//
// Accuracy against cpu-scalar (libm expf / tanhf), checked by tests/test_cpu_backends.cpp and
// tests/test_activation_math.cpp: ReLU and leaky ReLU bit-exact; sigmoid, tanh and GELU within
// abs 2e-6 + rel 1e-5 (a few units in the last place in practice; the bound is unchanged by the
// base-2 split, whose rounding of t adds at most 3e-7 relative for |x| <= 10).
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

// Lane by lane: where the sign bit of `x` is set (x < 0, -0, or a NaN with its sign set) a, else b.
// AVX2's blendv reads the sign bit directly, which saves the comparison (the kernel is limited by
// the two FMA/compare/blend pipes on AVX2, so every operation there counts; issue 17).
template <class F>
inline F select_by_sign(F x, F a, F b) {
#if defined(__AVX__)
    if constexpr (sizeof(F) == 32) return (F)_mm256_blendv_ps((__m256)b, (__m256)a, (__m256)x);
#endif
#if defined(__AVX512F__)
    if constexpr (sizeof(F) == 64) {
        const __mmask16 m = _mm512_cmplt_epi32_mask(_mm512_castps_si512((__m512)x), _mm512_setzero_si512());
        return (F)_mm512_mask_blend_ps(m, (__m512)b, (__m512)a);
    }
#endif
    typedef int32_t I __attribute__((vector_size(sizeof(F))));
    const I m = (I)x >> 31;  // all ones where the sign bit is set
    using U = typename Bits<F>::U;
    return (F)(((U)m & (U)a) | (~(U)m & (U)b));
}

// max(lo, x) that keeps a NaN x a NaN (x86's max returns its second operand when either is NaN).
template <class F>
inline F max_keep_nan(float lo, F x) {
#if defined(__AVX__)
    if constexpr (sizeof(F) == 32) return (F)_mm256_max_ps(_mm256_set1_ps(lo), (__m256)x);
#endif
#if defined(__AVX512F__)
    // (maskz with every lane: _mm512_max_ps trips GCC 12's -Wmaybe-uninitialized on its undefined pass-through)
    if constexpr (sizeof(F) == 64) return (F)_mm512_maskz_max_ps(0xffff, _mm512_set1_ps(lo), (__m512)x);
#endif
#if defined(__SSE2__)
    if constexpr (sizeof(F) == 16) return (F)_mm_max_ps(_mm_set1_ps(lo), (__m128)x);
#endif
    return select(x < lo, splat<F>(lo), x);
}

// [SECTION] e^x and e^x - 1 for x <= 0 (or NaN).

constexpr float kLog2e = 1.44269504089f;
constexpr float kShifter = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer in the low bits
constexpr float kMinExponent = -127.0f;  // t is clamped here: 2^k is then exactly 0 (see reduce)

// e^x = 2^t with t = x log2(e), split as t = k + f, k an integer and |f| <= 1/2. Gives f,
// e1 = (2^f - 1) / f as a polynomial, and 2^k, so that
//   e^x     = (1 + f e1) 2^k
//   e^x - 1 = (f e1) 2^k + (2^k - 1)      (no cancellation near x = 0, where k = 0)
// Working in base 2 costs one multiply where the natural-log split (x - k ln2 in two FMAs, Cody-Waite)
// cost three FMA-pipe operations; the price is t's rounding, at most half a unit of t: a relative
// error of 3e-7 in e^x at x = -10 and 2.6e-6 at x = -87, where the results are below 1e-38 anyway.
template <class F>
struct Reduced {
    F f, e1, scale;
};

// Takes t = x log2(e) (callers fold log2(e) into constants they multiply by anyway).
// t is clamped at -127 before rounding: there k = -127, whose biased exponent k + 127 is 0, so 2^k
// comes out as exactly +0 and e^x as 0 (true value below 1.2e-38), and -inf needs no special
// lane. (NaN stays NaN.) No select afterwards: every lane's arithmetic is already the answer.
template <class F>
inline Reduced<F> reduce_log2(F t_in) {
    using U = typename Bits<F>::U;
    const F t = max_keep_nan(kMinExponent, t_in);
    // tr = t + 1.5 * 2^23 carries k = round(t) in its low mantissa bits.
    const F tr = t + kShifter;
    const F k = tr - kShifter;
    const F f = t - k;
    // (2^f - 1) / f on |f| <= 1/2: degree 4, interpolated at Chebyshev nodes (near-minimax).
    // Relative error of 1 + f e1 against 2^f: 2.0e-7 (e1 itself 4.9e-7), 50x inside the 1e-5 bound.
    // Degree 5 (9e-9) cost one more FMA per vector for accuracy the bound does not ask for: the
    // AVX2 kernels are limited by the FMA pipes, so that FMA was ~7 % of their time (issue 17).
    F p = splat<F>(1.338130254e-3f);
    p = p * f + 9.666368515e-3f;
    p = p * f + 5.550381014e-2f;
    p = p * f + 2.402234904e-1f;
    p = p * f + 6.931471806e-1f;
    // 2^k: the biased exponent k + 127 shifted into place; k is in [-127, 0]. The high bits of tr
    // shift out; only k survives.
    const F scale = (F)(((U)tr + 127u) << 23);
    return {f, p, scale};
}

// e^x - 1 for x = t ln2 <= 0, from t.
template <class F>
inline F expm1_log2(F t) {
    const Reduced<F> q = reduce_log2(t);
    return (q.f * q.e1) * q.scale + (q.scale - 1.0f);  // -1 exactly where 2^k = 0
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
// `scale` multiplies the result (1 for sigmoid, x for GELU). Where e^-|x| underflows, e = 0 and
// the result is 0 (x < 0) or scale (x > 0) without a special case.
// `xt` is x log2(e) (same sign as x).
template <class F>
inline F scaled_sigmoid_log2(F xt, F scale) {
    const Reduced<F> q = reduce_log2(neg_abs(xt));
    const F e = (q.f * q.e1 + 1.0f) * q.scale;
    return select_by_sign(xt, e * scale, scale) / (e + 1.0f);
}

template <class F>
inline F sigmoid_v(F x) {
    const Reduced<F> q = reduce_log2(neg_abs(x * kLog2e));
    const F e = (q.f * q.e1 + 1.0f) * q.scale;
    return select_by_sign(x, e, splat<F>(1.0f)) / (e + 1.0f);
}

// tanh(x) = 1 - 2 / (e^2x + 1), rearranged around m = e^-2|x| - 1 in [-1, 0] so that it cannot
// overflow:  tanh(|x|) = -m / (2 + m),  then the sign of x is copied back (tanh(-0) = -0).
// Using e^y - 1 rather than e^y keeps relative accuracy near 0: with e^y, 1 - e^-2x cancels and
// tanh(1e-8) would come out as 0; with expm1 it is 1e-8 to the last bit or two.
template <class F>
inline F tanh_v(F x) {
    using U = typename Bits<F>::U;
    const F m = expm1_log2(abs_v(x) * (-2.0f * kLog2e));
    const F t = (-m) / (m + 2.0f);
    return (F)(((U)t & ~kSignBit) | ((U)x & kSignBit));
}

// GELU, the tanh approximation of core/ops/hd_math.h:
//   0.5 x (1 + tanh(u)),  u = sqrt(2/pi) (x + 0.044715 x^3)
// Since 0.5 (1 + tanh(u)) = sigmoid(2u), this is x * sigmoid(2u): one exp, one division, and no
// cancellation for negative x. Where e^2u underflows (x below about -10) the result is x * 0 = -0,
// as in hd::gelu; x = -inf is first clamped to -FLT_MAX so that it gives -0 too, not -inf * 0 = NaN.
// The constants carry log2(e) already: z is 2u log2(e), the exponent in base 2.
constexpr float kGeluTwoC = static_cast<float>(2.0 * 0.7978845608028654 * 1.4426950408889634);
constexpr float kGeluTwoCK = static_cast<float>(2.0 * 0.7978845608028654 * 0.044715 * 1.4426950408889634);

template <class F>
inline F gelu_v(F x) {
    const F z = x * ((x * x) * kGeluTwoCK + kGeluTwoC);
    return scaled_sigmoid_log2(z, max_keep_nan(-3.40282347e38f, x));
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
