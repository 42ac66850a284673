// cpu-parallel's convolution for CNN layers (many channels, small images): vectorised across
// output channels instead of output columns.
//
// The column-vectorised kernel (cpu_conv2d_simd.cpp) is right for one big picture, but a CNN
// layer at 28x28 or 14x14 has rows of only 2-4 vectors, and its 4 filters' weights are broadcast
// from 4 places C*R*S floats apart. Here one vector holds 8 (AVX2) or 16 (AVX-512) output
// channels of one pixel, and a block keeps two such vectors for up to 6 (AVX2) or 12 (AVX-512)
// neighbouring pixels in registers while every tap (c, r, s) adds
//
//     out[k0..k0+B-1][q] += in[c][p + r][q + s] * w[k0..k0+B-1][c][r][s]      for q in the block
//
// The input value is one broadcast, the B weights two contiguous vector loads (the filters are
// first repacked so that they are: pack_filters_by_channel), so each tap is 2 * pixels FMAs for
// 2 + pixels loads, and no lane is wasted whatever the image width. The block's results are
// transposed back to N,K,P,Q through a small buffer (one scalar move per output value, against
// C*R*S multiply-adds). Taps that land on the zero padding are skipped: whole filter rows at the
// top and bottom (RowJob::tap_begin / tap_end), and for 3x3 filters the edge pixels' outer window
// column (RowJob::skip_left_column / skip_right_column). The same choice as oneDNN's direct
// kernels (channels in the vector, padding taps skipped), kept in our N,C,H,W layout. Chosen when
// K is a multiple of B, C > 1, the stride is 1 and the kernel at most 7x7; measured in
// docs/benchmarks.md against the column kernel and oneDNN.
// Verified by tests/test_conv2d.cpp and tests/test_forced_isa.cpp (every usable ISA against
// cpu-scalar).
#include "cpu_conv2d_row.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GPULAB_CONV_CH_X86 1
#endif

#include "backends/simd/simd_math.h"

namespace gpulab::cpu::conv_detail {

namespace {

#ifdef GPULAB_CONV_CH_X86

// Pixels per block: balanced, so 14 columns are 5 + 5 + 4 rather than 6 + 6 + 2.
inline int64_t block_pixels(int64_t Q, int64_t q0, int64_t max_pixels) {
    const int64_t left = Q - q0;
    const int64_t blocks = (left + max_pixels - 1) / max_pixels;
    return (left + blocks - 1) / blocks;
}

// [SECTION] AVX2 + FMA: 16 channels (2 vectors) x up to 6 pixels = 12 accumulators of 16 registers

#pragma GCC push_options
#pragma GCC target("avx2,fma")

// One tap for pixels First..QB-Drop-1 (see block_ch_avx512 for the skipped ones).
template <int QB, int First, int Drop>
__attribute__((always_inline)) inline void tap_ch_avx2(__m256 (&acc)[QB][2], const float* x, const float* w) {
    const __m256 w0 = _mm256_loadu_ps(w);
    const __m256 w1 = _mm256_loadu_ps(w + 8);
#pragma GCC unroll 16
    for (int i = First; i < QB - Drop; ++i) {
        const __m256 xb = _mm256_broadcast_ss(x + i);
        acc[i][0] = _mm256_fmadd_ps(xb, w0, acc[i][0]);
        acc[i][1] = _mm256_fmadd_ps(xb, w1, acc[i][1]);
    }
}

template <int QB, int Left, int Right>
void block_ch_avx2(const RowJob& j, const float* wt, int64_t k0, int64_t q0) {
    // One loop over the taps, and the pixel loops unrolled: GCC then keeps the 2 x QB
    // accumulators in registers (with nested tap loops it stored them to the stack every step).
    __m256 acc[QB][2];
#pragma GCC unroll 16
    for (int i = 0; i < QB; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    const float* base = j.tap_base + q0;
    const int64_t* offsets = j.tap_offsets;
    const float* w = wt + j.tap_begin * 16;
    if constexpr (Left == 0 && Right == 0) {
        for (int64_t t = j.tap_begin; t < j.tap_end; ++t, w += 16) tap_ch_avx2<QB, 0, 0>(acc, base + offsets[t], w);
    } else {
        for (int64_t t = j.tap_begin; t < j.tap_end; t += 3, w += 48) {  // S = 3: s = 0, 1, 2
            tap_ch_avx2<QB, Left, 0>(acc, base + offsets[t], w);
            tap_ch_avx2<QB, 0, 0>(acc, base + offsets[t + 1], w + 16);
            tap_ch_avx2<QB, 0, Right>(acc, base + offsets[t + 2], w + 32);
        }
    }
    if (j.out_blocked) {
        float* out = j.out + (k0 / 16) * j.out_stride + q0 * 16;
#pragma GCC unroll 16
        for (int i = 0; i < QB; ++i) {
            _mm256_storeu_ps(out + i * 16, acc[i][0]);
            _mm256_storeu_ps(out + i * 16 + 8, acc[i][1]);
        }
        return;
    }
    alignas(32) float tmp[QB][16];
#pragma GCC unroll 16
    for (int i = 0; i < QB; ++i) {
        _mm256_store_ps(tmp[i], acc[i][0]);
        _mm256_store_ps(tmp[i] + 8, acc[i][1]);
    }
    for (int kk = 0; kk < 16; ++kk) {
        float* out = j.out + (k0 + kk) * j.out_stride + q0;
        for (int i = 0; i < QB; ++i) out[i] = tmp[i][kk];
    }
}

template <int QB>
void block_edges_avx2(const RowJob& j, const float* wt, int64_t k0, int64_t q0) {
    const bool left = j.skip_left_column && q0 == 0, right = j.skip_right_column && q0 + QB == j.Q;
    if (left && right) {
        block_ch_avx2<QB, 1, 1>(j, wt, k0, q0);
    } else if (left) {
        block_ch_avx2<QB, 1, 0>(j, wt, k0, q0);
    } else if (right) {
        block_ch_avx2<QB, 0, 1>(j, wt, k0, q0);
    } else {
        block_ch_avx2<QB, 0, 0>(j, wt, k0, q0);
    }
}

void row_ch_avx2(const RowJob& j) {
    const int64_t block_floats = j.filter_stride * 16;  // one block of 16 filters, repacked
    for (int64_t k0 = 0; k0 < j.K; k0 += 16) {
        const float* wt = j.filters + (k0 / 16) * block_floats;
        for (int64_t q0 = 0; q0 < j.Q;) {
            const int64_t qb = block_pixels(j.Q, q0, 6);
            switch (qb) {
                case 1: block_edges_avx2<1>(j, wt, k0, q0); break;
                case 2: block_edges_avx2<2>(j, wt, k0, q0); break;
                case 3: block_edges_avx2<3>(j, wt, k0, q0); break;
                case 4: block_edges_avx2<4>(j, wt, k0, q0); break;
                case 5: block_edges_avx2<5>(j, wt, k0, q0); break;
                default: block_edges_avx2<6>(j, wt, k0, q0); break;
            }
            q0 += qb;
        }
    }
}

// One staged output block, `pixels` x B (B a multiple of 8) -> B planes of `pixels` (cpu_conv2d_staged.cpp),
// in 8 x 8 tiles transposed in registers: unpack pairs of rows, then pairs of pairs, then swap
// 128-bit halves. Also used on AVX-512 machines: the tiles are small and the pass is memory bound.
void unblock_avx2(const float* src, int64_t pixels, int64_t B, float* dst) {
    const int64_t full = pixels / 8 * 8;
    for (int64_t i = 0; i < full; i += 8) {
        for (int64_t lane = 0; lane < B; lane += 8) {
            const float* in = src + i * B + lane;
            __m256 r[8];
#pragma GCC unroll 8
            for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(in + k * B);
            const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
            const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
            const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
            const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
            const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
            const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
            const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
            const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);
            float* o = dst + lane * pixels + i;
            _mm256_storeu_ps(o + 0 * pixels, _mm256_permute2f128_ps(u0, u4, 0x20));
            _mm256_storeu_ps(o + 1 * pixels, _mm256_permute2f128_ps(u1, u5, 0x20));
            _mm256_storeu_ps(o + 2 * pixels, _mm256_permute2f128_ps(u2, u6, 0x20));
            _mm256_storeu_ps(o + 3 * pixels, _mm256_permute2f128_ps(u3, u7, 0x20));
            _mm256_storeu_ps(o + 4 * pixels, _mm256_permute2f128_ps(u0, u4, 0x31));
            _mm256_storeu_ps(o + 5 * pixels, _mm256_permute2f128_ps(u1, u5, 0x31));
            _mm256_storeu_ps(o + 6 * pixels, _mm256_permute2f128_ps(u2, u6, 0x31));
            _mm256_storeu_ps(o + 7 * pixels, _mm256_permute2f128_ps(u3, u7, 0x31));
        }
    }
    for (int64_t lane = 0; lane < B; ++lane)
        for (int64_t i = full; i < pixels; ++i) dst[lane * pixels + i] = src[i * B + lane];
}

#pragma GCC pop_options

// [SECTION] AVX-512: 32 channels (2 vectors) x up to 12 pixels = 24 accumulators of 32 registers
// (each broadcast input value feeds the FMAs of both vectors, so it is loaded once into a register)

#pragma GCC push_options
#pragma GCC target("avx512f,fma")

// One tap for pixels First..QB-Drop-1 of the block: the skipped pixels' window column lies on the
// zero padding (see block_ch_avx512).
template <int QB, int First, int Drop>
__attribute__((always_inline)) inline void tap_ch_avx512(__m512 (&acc)[QB][2], const float* x, const float* w) {
    const __m512 w0 = _mm512_loadu_ps(w);
    const __m512 w1 = _mm512_loadu_ps(w + 16);
#pragma GCC unroll 16
    for (int i = First; i < QB - Drop; ++i) {
        const __m512 xb = _mm512_set1_ps(x[i]);
        acc[i][0] = _mm512_fmadd_ps(xb, w0, acc[i][0]);
        acc[i][1] = _mm512_fmadd_ps(xb, w1, acc[i][1]);
    }
}

// Left / Right: the block's first / last pixel is at the image's edge and the filter 3 wide with
// one column of zero padding, so that pixel's first / last window column multiplies zeros: its
// taps are skipped (oneDNN skips them too). 4.8 % of a 14x14 layer's multiply-adds, 2.4 % at 28x28.
template <int QB, int Left, int Right>
void block_ch_avx512(const RowJob& j, const float* wt, int64_t k0, int64_t q0) {
    // One loop over the taps, and the pixel loops unrolled: GCC then keeps the 2 x QB
    // accumulators in registers (with nested tap loops it stored them to the stack every step).
    __m512 acc[QB][2];
#pragma GCC unroll 16
    for (int i = 0; i < QB; ++i) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
    const float* base = j.tap_base + q0;
    const int64_t* offsets = j.tap_offsets;
    const float* w = wt + j.tap_begin * 32;
    if constexpr (Left == 0 && Right == 0) {
        for (int64_t t = j.tap_begin; t < j.tap_end; ++t, w += 32) tap_ch_avx512<QB, 0, 0>(acc, base + offsets[t], w);
    } else {
        // Filter rows r_lo..r_hi-1 (tap_begin and tap_end are whole filter rows), channels by
        // channel_stride, the 3 taps of (r, c) at x, x + 1, x + 2: no offset loaded per tap.
        const int64_t C = j.cr_count / 3;
        for (int64_t t = j.tap_begin; t < j.tap_end; t += 3 * C) {
            const float* x = base + offsets[t];
            for (int64_t c = 0; c < C; ++c, x += j.channel_stride, w += 96) {
                tap_ch_avx512<QB, Left, 0>(acc, x, w);
                tap_ch_avx512<QB, 0, 0>(acc, x + 1, w + 32);
                tap_ch_avx512<QB, 0, Right>(acc, x + 2, w + 64);
            }
        }
    }
    if (j.out_blocked) {
        float* out = j.out + (k0 / 32) * j.out_stride + q0 * 32;
#pragma GCC unroll 16
        for (int i = 0; i < QB; ++i) {
            _mm512_storeu_ps(out + i * 32, acc[i][0]);
            _mm512_storeu_ps(out + i * 32 + 16, acc[i][1]);
        }
        return;
    }
    alignas(64) float tmp[QB][32];
#pragma GCC unroll 16
    for (int i = 0; i < QB; ++i) {
        _mm512_store_ps(tmp[i], acc[i][0]);
        _mm512_store_ps(tmp[i] + 16, acc[i][1]);
    }
    for (int kk = 0; kk < 32; ++kk) {
        float* out = j.out + (k0 + kk) * j.out_stride + q0;
        for (int i = 0; i < QB; ++i) out[i] = tmp[i][kk];
    }
}

template <int QB>
void block_edges_avx512(const RowJob& j, const float* wt, int64_t k0, int64_t q0) {
    const bool left = j.skip_left_column && q0 == 0, right = j.skip_right_column && q0 + QB == j.Q;
    if (left && right) {
        block_ch_avx512<QB, 1, 1>(j, wt, k0, q0);
    } else if (left) {
        block_ch_avx512<QB, 1, 0>(j, wt, k0, q0);
    } else if (right) {
        block_ch_avx512<QB, 0, 1>(j, wt, k0, q0);
    } else {
        block_ch_avx512<QB, 0, 0>(j, wt, k0, q0);
    }
}

void row_ch_avx512(const RowJob& j) {
    const int64_t block_floats = j.filter_stride * 32;  // one block of 32 filters, repacked
    for (int64_t k0 = 0; k0 < j.K; k0 += 32) {
        const float* wt = j.filters + (k0 / 32) * block_floats;
        for (int64_t q0 = 0; q0 < j.Q;) {
            const int64_t qb = block_pixels(j.Q, q0, 12);
            switch (qb) {
                case 1: block_edges_avx512<1>(j, wt, k0, q0); break;
                case 2: block_edges_avx512<2>(j, wt, k0, q0); break;
                case 3: block_edges_avx512<3>(j, wt, k0, q0); break;
                case 4: block_edges_avx512<4>(j, wt, k0, q0); break;
                case 5: block_edges_avx512<5>(j, wt, k0, q0); break;
                case 6: block_edges_avx512<6>(j, wt, k0, q0); break;
                case 7: block_edges_avx512<7>(j, wt, k0, q0); break;
                case 8: block_edges_avx512<8>(j, wt, k0, q0); break;
                case 9: block_edges_avx512<9>(j, wt, k0, q0); break;
                case 10: block_edges_avx512<10>(j, wt, k0, q0); break;
                case 11: block_edges_avx512<11>(j, wt, k0, q0); break;
                default: block_edges_avx512<12>(j, wt, k0, q0); break;
            }
            q0 += qb;
        }
    }
}

#pragma GCC pop_options

#endif  // GPULAB_CONV_CH_X86

}  // namespace

int channel_block(int isa) {
#ifdef GPULAB_CONV_CH_X86
    if (isa == static_cast<int>(SimdIsa::Avx512)) return 32;
    if (isa == static_cast<int>(SimdIsa::Avx2Fma)) return 16;
#endif
    (void)isa;
    return 0;
}

RowFn channel_row_function(int isa, int64_t S) {
#ifdef GPULAB_CONV_CH_X86
    // 1x1 to 7x7: any width works (the taps are one flat loop); wider kernels take the column kernel.
    if (S > 7) return nullptr;
    if (isa == static_cast<int>(SimdIsa::Avx512)) return row_ch_avx512;
    if (isa == static_cast<int>(SimdIsa::Avx2Fma)) return row_ch_avx2;
#endif
    (void)isa;
    (void)S;
    return nullptr;
}

namespace {
void unblock_baseline(const float* src, int64_t pixels, int64_t B, float* dst) {
    for (int64_t lane = 0; lane < B; ++lane)
        for (int64_t i = 0; i < pixels; ++i) dst[lane * pixels + i] = src[i * B + lane];
}
}  // namespace

UnblockFn unblock_function(int isa) {
#ifdef GPULAB_CONV_CH_X86
    if (isa == static_cast<int>(SimdIsa::Avx512) || isa == static_cast<int>(SimdIsa::Avx2Fma)) return unblock_avx2;
#endif
    (void)isa;
    return unblock_baseline;
}

void pack_filters_by_channel(const float* filters, int64_t K, int64_t C, int64_t R, int64_t S, int64_t B, float* out) {
    for (int64_t k = 0; k < K; ++k) {
        const int64_t kb = k / B, lane = k % B;
        for (int64_t c = 0; c < C; ++c) {
            for (int64_t r = 0; r < R; ++r) {
                const float* src = filters + ((k * C + c) * R + r) * S;
                float* dst = out + (((kb * R + r) * C + c) * S) * B + lane;
                for (int64_t s = 0; s < S; ++s) dst[s * B] = src[s];
            }
        }
    }
}

}  // namespace gpulab::cpu::conv_detail
