// The AVX-512 pieces both BF16 kernels use (gemm_bf16_avx512bf16.cpp, gemm_bf16_amx.cpp): the rounding
// of 16 floats to BF16, the pair words of B, masks for the last lanes, and a per-thread packing
// buffer. Included only by files compiled with -mavx512f; every function has internal linkage
// (static), so the two files, built with different flags, never share one copy.
#pragma once

#include <immintrin.h>

#include <cstdint>
#include <cstdlib>

namespace gpulab::cpu::bf16_detail {

// The BF16 rounding of 16 floats, the result in the high half of each 32-bit lane: x's bits + 0x7FFF
// + (bit 16 of x), round to nearest, ties to even, subnormals and overflow to infinity included; NaN
// keeps its top bits and gets the quiet bit. That is core::round_to(Bf16, x) bit for bit. (Not
// VCVTNEPS2BF16: it treats FP32 subnormals as zero.)
static inline __m512i rne_high(__m512 x) {
    const __m512i bits = _mm512_castps_si512(x);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(bits, 16), _mm512_set1_epi32(1));
    const __m512i rounded = _mm512_add_epi32(bits, _mm512_add_epi32(_mm512_set1_epi32(0x7FFF), lsb));
    const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    return _mm512_mask_mov_epi32(rounded, nan, _mm512_or_si512(bits, _mm512_set1_epi32(0x00400000)));
}

// 16 floats as 16 BF16 numbers, in order.
static inline __m256i bf16_halves(__m512 x) { return _mm512_cvtepi32_epi16(_mm512_srli_epi32(rne_high(x), 16)); }

// Lane l = bf16(lo[l]) | bf16(hi[l]) << 16: a pair of k in one 32-bit word, the layout both
// VDPBF16PS and TDPBF16PS read B in.
static inline __m512i pair_words(__m512 lo, __m512 hi) {
    return _mm512_or_si512(_mm512_srli_epi32(rne_high(lo), 16),
                           _mm512_and_si512(rne_high(hi), _mm512_set1_epi32(static_cast<int>(0xFFFF0000u))));
}

// The first `count` of 16 lanes (none for count <= 0).
static inline __mmask16 first_lanes(std::int64_t count) {
    return count >= 16 ? static_cast<__mmask16>(0xFFFF) : count <= 0 ? 0 : static_cast<__mmask16>((1u << count) - 1);
}

// A grow-only, 64-byte aligned buffer of 32-bit words, one per calling thread (a measurement loop
// packs into the same memory every time: no page faults inside the timing).
struct PackBuffer {
    std::uint32_t* data = nullptr;
    std::size_t capacity = 0;
    PackBuffer() = default;
    PackBuffer(const PackBuffer&) = delete;
    PackBuffer& operator=(const PackBuffer&) = delete;
    ~PackBuffer() { std::free(data); }
    std::uint32_t* get(std::size_t count) {
        if (count > capacity) {
            std::free(data);
            const std::size_t bytes = (count * sizeof(std::uint32_t) + 63) / 64 * 64;
            data = static_cast<std::uint32_t*>(std::aligned_alloc(64, bytes));
            capacity = data != nullptr ? count : 0;
        }
        return data;
    }
};

}  // namespace gpulab::cpu::bf16_detail
