// cpu-parallel's direct convolution (see cpu_conv2d.h for the scheme and its picture).
//
// The vector kernels sit between `#pragma GCC push_options` / `target(...)` / `pop_options`, so
// only these functions are compiled with AVX-512 or AVX2 instructions and the rest of the program
// (and every inline library function) stays baseline x86-64: the binary runs on any CPU and picks
// the widest kernel the CPU has at run time. Intrinsics, not auto-vectorisation, because the
// register blocking (which values stay in registers across the tap loop) is the point. It is also
// why each kernel here and in cpu_conv2d_channels.cpp is written twice, once per ISA: code shared by
// the two regions (a template over the vector type) would be compiled outside both, for baseline
// x86-64, and the twins must stay twins.
// Verified by tests/test_conv2d.cpp (every usable ISA against cpu-scalar, odd shapes, strides).
#include "cpu_conv2d.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GPULAB_CONV_X86 1
#endif

#include "cpu_conv2d_gemm.h"
#include "cpu_conv2d_row.h"
#include "runtime/thread_pool.h"

namespace gpulab::cpu {

using conv_detail::RowJob;

namespace {

// Strides above 1: the same scratch rows, a plain loop (the compiler may vectorise the sum).
void row_strided(const RowJob& j) {
    for (int64_t k = 0; k < j.K; ++k) {
        const float* w = j.filters + k * j.filter_stride;
        float* out = j.out + k * j.out_stride;
        for (int64_t q = 0; q < j.Q; ++q) {
            float acc = 0.0f;
            for (int64_t cr = 0; cr < j.cr_count; ++cr) {
                const float* x = j.rows[cr] + q * j.stride;
                const float* wc = w + cr * j.S;
                for (int64_t s = 0; s < j.S; ++s) acc += wc[s] * x[s];
            }
            out[q] = acc;
        }
    }
}

// [SECTION] baseline: blocks of 4 filters x 16 columns in plain arrays (the compiler's SSE2)
void row_baseline(const RowJob& j) {
    constexpr int kQ = 16;
    for (int64_t k0 = 0; k0 < j.K; k0 += 4) {
        const int kb = static_cast<int>(std::min<int64_t>(4, j.K - k0));
        for (int64_t q0 = 0; q0 < j.Q; q0 += kQ) {
            const int nq = static_cast<int>(std::min<int64_t>(kQ, j.Q - q0));
            float acc[4][kQ] = {};
            for (int64_t cr = 0; cr < j.cr_count; ++cr) {
                const float* x = j.rows[cr] + q0;
                for (int64_t s = 0; s < j.S; ++s) {
                    for (int b = 0; b < kb; ++b) {
                        const float w = j.filters[(k0 + b) * j.filter_stride + cr * j.S + s];
                        for (int i = 0; i < kQ; ++i) acc[b][i] += w * x[s + i];
                    }
                }
            }
            for (int b = 0; b < kb; ++b) std::memcpy(j.out + (k0 + b) * j.out_stride + q0, acc[b], nq * sizeof(float));
        }
    }
}

// Ring refills: one input row of each of C channels into its ring slot, dst + c * dst_stride <- src +
// c * src_stride (W floats), or zeros where src is null (rows above and below the image). Per ISA,
// with the copies inline: memcpy's call and size dispatch cost more than moving 14-28 floats, and
// C calls per output row were 6 % of a batch-64 14x14 layer's time (perf), the loop around them 6 % more.
using conv_detail::FillFn;

void fill_baseline(const float* src, int64_t src_stride, float* dst, int64_t dst_stride, int64_t C, int64_t W) {
    for (int64_t c = 0; c < C; ++c) {
        float* d = dst + c * dst_stride;
        if (src != nullptr) {
            std::memcpy(d, src + c * src_stride, W * sizeof(float));
        } else {
            std::fill(d, d + W, 0.0f);
        }
    }
}

#ifdef GPULAB_CONV_X86

// [SECTION] AVX-512: 16 floats per vector, up to 4 filters x 4 vectors = 16 accumulators (of 32 registers)
#pragma GCC push_options
#pragma GCC target("avx512f,fma")

template <int KB, int QV>
void block_avx512(const RowJob& j, int64_t k0, int64_t q0, __mmask16 tail) {
    __m512 acc[KB][QV];
    for (int b = 0; b < KB; ++b)
        for (int v = 0; v < QV; ++v) acc[b][v] = _mm512_setzero_ps();
    const float* w0 = j.filters + k0 * j.filter_stride;
    for (int64_t cr = 0; cr < j.cr_count; ++cr) {
        const float* x = j.rows[cr] + q0;
        const float* wc = w0 + cr * j.S;
        for (int64_t s = 0; s < j.S; ++s) {
            // Unaligned loads may read up to 15 floats past the last column: the scratch rows
            // have that much zeroed slack, and masked stores drop those lanes.
            __m512 xv[QV];
            for (int v = 0; v < QV; ++v) xv[v] = _mm512_loadu_ps(x + s + 16 * v);
            for (int b = 0; b < KB; ++b) {
                const __m512 w = _mm512_set1_ps(wc[b * j.filter_stride + s]);
                for (int v = 0; v < QV; ++v) acc[b][v] = _mm512_fmadd_ps(w, xv[v], acc[b][v]);
            }
        }
    }
    for (int b = 0; b < KB; ++b) {
        float* out = j.out + (k0 + b) * j.out_stride + q0;
        for (int v = 0; v < QV - 1; ++v) _mm512_storeu_ps(out + 16 * v, acc[b][v]);
        _mm512_mask_storeu_ps(out + 16 * (QV - 1), tail, acc[b][QV - 1]);
    }
}

template <int KB>
void columns_avx512(const RowJob& j, int64_t k0) {
    for (int64_t q0 = 0; q0 < j.Q; q0 += 64) {
        const int64_t left = j.Q - q0 < 64 ? j.Q - q0 : 64;
        const int qv = static_cast<int>((left + 15) / 16);
        const int rem = static_cast<int>(left - 16 * (qv - 1));
        const __mmask16 tail = static_cast<__mmask16>(rem == 16 ? 0xffff : (1u << rem) - 1u);
        switch (qv) {
            case 1: block_avx512<KB, 1>(j, k0, q0, tail); break;
            case 2: block_avx512<KB, 2>(j, k0, q0, tail); break;
            case 3: block_avx512<KB, 3>(j, k0, q0, tail); break;
            default: block_avx512<KB, 4>(j, k0, q0, tail); break;
        }
    }
}

void row_avx512(const RowJob& j) {
    int64_t k0 = 0;
    for (; k0 + 4 <= j.K; k0 += 4) columns_avx512<4>(j, k0);
    switch (j.K - k0) {
        case 1: columns_avx512<1>(j, k0); break;
        case 2: columns_avx512<2>(j, k0); break;
        case 3: columns_avx512<3>(j, k0); break;
        default: break;
    }
}

void fill_avx512(const float* src, int64_t src_stride, float* dst, int64_t dst_stride, int64_t C, int64_t W) {
    // The last vector is loaded with the lanes past W zeroed and stored whole: those lanes land on the
    // row's right pad and slack, which must hold zeros anyway (a masked store was 64 % of this loop).
    const int64_t full = W / 16 * 16;
    const __mmask16 tail = static_cast<__mmask16>((1u << (W - full)) - 1u);
    for (int64_t c = 0; c < C; ++c) {
        float* d = dst + c * dst_stride;
        if (src != nullptr) {
            const float* s = src + c * src_stride;
            for (int64_t i = 0; i < full; i += 16) _mm512_storeu_ps(d + i, _mm512_loadu_ps(s + i));
            if (tail != 0) _mm512_storeu_ps(d + full, _mm512_maskz_loadu_ps(tail, s + full));
        } else {
            for (int64_t i = 0; i < W; i += 16) _mm512_storeu_ps(d + i, _mm512_setzero_ps());
        }
    }
}

#pragma GCC pop_options

// [SECTION] AVX2+FMA: 8 floats per vector, up to 4 filters x 2 vectors (16 registers in all)
#pragma GCC push_options
#pragma GCC target("avx2,fma")

template <int KB, int QV>
void block_avx2(const RowJob& j, int64_t k0, int64_t q0, int tail) {
    __m256 acc[KB][QV];
    for (int b = 0; b < KB; ++b)
        for (int v = 0; v < QV; ++v) acc[b][v] = _mm256_setzero_ps();
    const float* w0 = j.filters + k0 * j.filter_stride;
    for (int64_t cr = 0; cr < j.cr_count; ++cr) {
        const float* x = j.rows[cr] + q0;
        const float* wc = w0 + cr * j.S;
        for (int64_t s = 0; s < j.S; ++s) {
            __m256 xv[QV];
            for (int v = 0; v < QV; ++v) xv[v] = _mm256_loadu_ps(x + s + 8 * v);
            for (int b = 0; b < KB; ++b) {
                const __m256 w = _mm256_set1_ps(wc[b * j.filter_stride + s]);
                for (int v = 0; v < QV; ++v) acc[b][v] = _mm256_fmadd_ps(w, xv[v], acc[b][v]);
            }
        }
    }
    for (int b = 0; b < KB; ++b) {
        float* out = j.out + (k0 + b) * j.out_stride + q0;
        for (int v = 0; v < QV - 1; ++v) _mm256_storeu_ps(out + 8 * v, acc[b][v]);
        if (tail == 8) {
            _mm256_storeu_ps(out + 8 * (QV - 1), acc[b][QV - 1]);
        } else {
            alignas(32) float last[8];
            _mm256_store_ps(last, acc[b][QV - 1]);
            for (int i = 0; i < tail; ++i) out[8 * (QV - 1) + i] = last[i];
        }
    }
}

template <int KB, int MaxQV>
void columns_avx2(const RowJob& j, int64_t k0) {
    constexpr int64_t kSpan = 8 * MaxQV;
    for (int64_t q0 = 0; q0 < j.Q; q0 += kSpan) {
        const int64_t left = j.Q - q0 < kSpan ? j.Q - q0 : kSpan;
        const int qv = static_cast<int>((left + 7) / 8);
        const int tail = static_cast<int>(left - 8 * (qv - 1));
        switch (qv) {
            case 1: block_avx2<KB, 1>(j, k0, q0, tail); break;
            case 2: block_avx2<KB, 2>(j, k0, q0, tail); break;
            case 3: block_avx2<KB, 3>(j, k0, q0, tail); break;
            default: block_avx2<KB, (MaxQV < 4 ? MaxQV : 4)>(j, k0, q0, tail); break;
        }
    }
}

void row_avx2(const RowJob& j) {
    int64_t k0 = 0;
    for (; k0 + 4 <= j.K; k0 += 4) columns_avx2<4, 2>(j, k0);
    switch (j.K - k0) {
        case 1: columns_avx2<1, 4>(j, k0); break;
        case 2: columns_avx2<2, 4>(j, k0); break;
        case 3: columns_avx2<3, 2>(j, k0); break;
        default: break;
    }
}

// As fill_avx512: the last partial vector is loaded masked (lanes past W read as zero) and stored
// whole onto the row's zero pad and slack; a masked store is slow on some CPUs.
void fill_avx2(const float* src, int64_t src_stride, float* dst, int64_t dst_stride, int64_t C, int64_t W) {
    const int64_t full = W / 8 * 8;
    const int left = static_cast<int>(W - full);
    const __m256i tail = _mm256_cmpgt_epi32(_mm256_set1_epi32(left), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    for (int64_t c = 0; c < C; ++c) {
        float* d = dst + c * dst_stride;
        if (src != nullptr) {
            const float* s = src + c * src_stride;
            for (int64_t i = 0; i < full; i += 8) _mm256_storeu_ps(d + i, _mm256_loadu_ps(s + i));
            if (left != 0) _mm256_storeu_ps(d + full, _mm256_maskload_ps(s + full, tail));
        } else {
            for (int64_t i = 0; i < W; i += 8) _mm256_storeu_ps(d + i, _mm256_setzero_ps());
        }
    }
}

#pragma GCC pop_options

#endif  // GPULAB_CONV_X86

using conv_detail::RowFn;

RowFn row_function(SimdIsa isa) {
#ifdef GPULAB_CONV_X86
    if (isa == SimdIsa::Avx512) return row_avx512;
    if (isa == SimdIsa::Avx2Fma) return row_avx2;
#endif
    (void)isa;
    return row_baseline;
}

// Floats of zeroed slack after each scratch row: one full AVX-512 vector, so the column kernels'
// loads and the fills' whole last vectors (zeros past W) stay inside the row.
constexpr int64_t kRowSlack = 16;

}  // namespace

// Output rows per pool chunk. Each chunk refills its scratch ring from scratch (R input rows per
// channel before its first output row, one per row after), so chunks of one row, as a single
// 14x14 picture would get from the balancing rule, copy every input row R times. Few rows: one
// chunk per thread. Many: enough chunks for the pool to balance, each still long. The staged driver
// (no ring) uses the same rule: one-row chunks there were 20 % slower on one 28x28 picture, as both
// cores then read every input row.
int64_t conv_detail::rows_per_chunk(int64_t rows_total, int threads) {
    if (rows_total <= static_cast<int64_t>(threads) * 16) return (rows_total + threads - 1) / threads;
    return rows_total / (static_cast<int64_t>(threads) * 8);
}

FillFn conv_detail::fill_function(int isa_number) {
    const auto isa = static_cast<SimdIsa>(isa_number);
#ifdef GPULAB_CONV_X86
    if (isa == SimdIsa::Avx512) return fill_avx512;
    if (isa == SimdIsa::Avx2Fma) return fill_avx2;
#endif
    (void)isa;
    return fill_baseline;
}

namespace {

// Where the window's rows and taps are for each output row phase p mod R (see RowJob::tap_offsets):
// slot ((p * stride - pad + r) mod R) of the ring holds the input row under filter row r. Built per
// thread when the scratch buffer or the shape changes, not per output row (that cost 5 % of a
// 64-channel layer's time at 28x28, measured with perf).
struct RingTables {
    const float* scratch = nullptr;
    int64_t C = 0, R = 0, row_len = 0, stride = 0, pad = 0;
    std::vector<const float*> rows;  // [phase][c * R + r]
    std::vector<int64_t> taps;       // [phase][(r * C + c) * S + s], S = R: offsets from scratch

    void build(const float* scratch_in, int64_t C_in, int64_t R_in, int64_t row_len_in, int64_t stride_in,
               int64_t pad_in) {
        if (scratch_in == scratch && C_in == C && R_in == R && row_len_in == row_len && stride_in == stride &&
            pad_in == pad) {
            return;
        }
        scratch = scratch_in, C = C_in, R = R_in, row_len = row_len_in, stride = stride_in, pad = pad_in;
        rows.resize(static_cast<std::size_t>(R * C * R));
        taps.resize(static_cast<std::size_t>(R * C * R * R));
        for (int64_t phase = 0; phase < R; ++phase) {
            for (int64_t r = 0; r < R; ++r) {
                const int64_t slot = (((phase * stride - pad + r) % R) + R) % R;
                for (int64_t c = 0; c < C; ++c) {
                    const int64_t row = (c * R + slot) * row_len;
                    rows[static_cast<std::size_t>(phase * C * R + c * R + r)] = scratch + row;
                    for (int64_t s = 0; s < R; ++s) {
                        taps[static_cast<std::size_t>((phase * R * C + r * C + c) * R + s)] = row + s;
                    }
                }
            }
        }
    }
};

void run_rows(RowFn row_fn, FillFn fill_fn, const core::Conv2dDesc& d, const float* input, const float* filters,
              float* output) {
    const int64_t C = d.channels, H = d.height, W = d.width, K = d.filters, R = d.kernel;
    const int64_t P = d.out_height(), Q = d.out_width(), pad = d.pad(), stride = d.stride;
    const int64_t row_len = W + 2 * pad + kRowSlack;
    const int64_t rows_total = d.batch * P;
    const int64_t chunk = std::max<int64_t>(1, conv_detail::rows_per_chunk(rows_total, ThreadPool::shared().size()));
    if (stride > 1) row_fn = row_strided;
    // Output column 0 reads input column -pad..; column Q-1 reads up to (Q-1) * stride - pad + R - 1.
    const bool skip_left = R == 3 && stride == 1 && pad == 1;
    const bool skip_right = R == 3 && stride == 1 && (Q - 1) - pad + 2 == W;

    ThreadPool::shared().parallel_for(
        rows_total,
        [&](int64_t begin, int64_t end) {
            // The scratch ring: slot y mod R holds input row y (all channels), zero-padded left and
            // right; rows outside the image are all zero. key[slot] says which (n, y) it holds.
            thread_local std::vector<float> scratch;
            thread_local RingTables tables;
            if (static_cast<int64_t>(scratch.size()) < C * R * row_len) {
                scratch.resize(static_cast<std::size_t>(C * R * row_len));
            }
            tables.build(scratch.data(), C, R, row_len, stride, pad);
            // Only the W interior floats of a slot are ever written below, so zeroing the ring once
            // per chunk leaves every left pad and right slack zero for the whole chunk (per-row
            // fills of those few floats were a third of the copying time at 14x14).
            std::fill(scratch.begin(), scratch.begin() + C * R * row_len, 0.0f);
            std::vector<int64_t> key(static_cast<std::size_t>(R), -1);
            for (int64_t idx = begin; idx < end; ++idx) {
                const int64_t n = idx / P, p = idx % P;
                for (int64_t r = 0; r < R; ++r) {
                    const int64_t y = p * stride - pad + r;  // input row under filter row r
                    const int64_t slot = ((y % R) + R) % R;
                    const int64_t want = n * (H + 2 * R) + y + R;
                    if (key[slot] == want) continue;
                    const bool inside = y >= 0 && y < H;
                    fill_fn(inside ? input + (n * C * H + y) * W : nullptr, H * W, scratch.data() + slot * row_len + pad,
                            R * row_len, C, W);
                    key[slot] = want;
                }
                // (No software prefetch of the next rows: with and without it, six interleaved runs
                // per shape were equal within 1 %; the hardware prefetcher follows the channels' streams.)
                const int64_t phase = p % R;
                const int64_t y0 = p * stride - pad;  // input row under filter row 0
                const int64_t r_lo = std::clamp<int64_t>(-y0, 0, R), r_hi = std::clamp<int64_t>(H - y0, r_lo, R);
                RowJob job{tables.rows.data() + phase * C * R, C * R, R, filters, C * R * R, K,
                           output + (n * K * P + p) * Q, P * Q, Q, stride,
                           scratch.data(), tables.taps.data() + phase * C * R * R, r_lo * C * R, r_hi * C * R,
                           skip_left, skip_right, R * row_len};
                row_fn(job);
            }
        },
        chunk);
}

// The output-channel kernel (cpu_conv2d_channels.cpp) for CNN layers: K a multiple of its block,
// more than one input channel, stride 1. 0 when the column kernel runs.
int64_t channel_block_for(SimdIsa isa, const core::Conv2dDesc& d) {
    const int64_t b = conv_detail::channel_block(static_cast<int>(isa));
    if (b == 0 || d.stride != 1 || d.channels < 2 || d.filters % b != 0) return 0;
    if (conv_detail::channel_row_function(static_cast<int>(isa), d.kernel) == nullptr) return 0;
    return b;
}

// Which of the three paths runs a shape (measured in docs/benchmarks.md, CPU time per flop, both ISAs):
//   channel kernel  CNN layers it fits (above): beat im2col + GEMM by 1.1-2x (CPU time) on every C = K = 32/64
//                   3x3 layer at 28x28 / 14x14 / 11x11 / 3x3, because GEMM pays for copying 9 taps
//                   per input value in rows of 14-28 floats;
//   im2col + GEMM   at least 16 filters on one input channel (a CNN's first layer) or with a stride
//                   above 1: 2-4x the column kernel on C = 1, K = 32 at 28x28, 8-20x the strided plain
//                   loop at K = 16 and 64;
//   column kernel   the rest: few filters (the lesson's single pictures, K < 16: GEMM would have
//                   1-15 rows) and K not a multiple of the block (C = K = 24 at 28x28: 1.07x GEMM
//                   on AVX2, 1.6x on AVX-512).
enum class ConvPath { Channels, Gemm, Columns };

ConvPath conv_path(SimdIsa isa, const core::Conv2dDesc& d) {
    if (channel_block_for(isa, d) > 0) return ConvPath::Channels;
    if (isa != SimdIsa::Baseline && d.filters >= 16 && (d.channels == 1 || d.stride > 1)) return ConvPath::Gemm;
    return ConvPath::Columns;
}

// `filters` already in the layout of the kernel that runs (Conv2dFilters).
void run_direct(SimdIsa isa, const core::Conv2dDesc& d, const float* input, const float* filters, float* output) {
    const RowFn row_fn = channel_block_for(isa, d) == 0
                             ? row_function(isa)
                             : conv_detail::channel_row_function(static_cast<int>(isa), d.kernel);
    run_rows(row_fn, conv_detail::fill_function(static_cast<int>(isa)), d, input, filters, output);
}

void add_bias(const core::Conv2dDesc& d, const float* bias, float* output) {
    const int64_t PQ = d.out_height() * d.out_width();
    ThreadPool::shared().parallel_for(
        d.batch * d.filters,
        [&](int64_t begin, int64_t end) {
            for (int64_t plane = begin; plane < end; ++plane) {
                float* out = output + plane * PQ;
                const float add = bias[plane % d.filters];
                for (int64_t i = 0; i < PQ; ++i) out[i] += add;
            }
        },
        16);
}

void run_for_isa(SimdIsa isa, const core::Conv2dDesc& d, const float* input, const float* filters, const float* bias,
                 float* output) {
    if (conv_path(isa, d) == ConvPath::Gemm) {
        conv2d_gemm(isa, d, input, filters, bias, output);
        return;
    }
    // Repacked on every call (about 19 us for 64 x 64 x 3 x 3): a training step changes the weights
    // between calls, so nothing is cached here. The lesson's timed runs pack first (Conv2dFilters).
    thread_local Conv2dFilters prepared;
    prepare_filters(isa, d, filters, prepared);
    run_direct(isa, d, input, prepared.data(), output);
    if (bias != nullptr) add_bias(d, bias, output);
}

}  // namespace

bool conv2d_parallel_with(SimdIsa isa, const core::Conv2dDesc& d, const float* input, const float* filters,
                          float* output) {
    if (!simd_isa_usable(isa)) return false;
    run_for_isa(isa, d, input, filters, nullptr, output);
    return true;
}

bool prepare_filters(SimdIsa isa, const core::Conv2dDesc& d, const float* filters, Conv2dFilters& out) {
    if (!simd_isa_usable(isa)) return false;
    out.isa = isa;
    out.desc = d;
    out.source = filters;
    const int64_t b = channel_block_for(isa, d);  // > 0 exactly where the channel kernel runs (conv_path)
    if (b == 0) {
        out.packed.clear();  // the kernel reads K,C,R,S as given
        return true;
    }
    const int64_t RS = d.kernel * d.kernel;
    out.packed.resize(static_cast<std::size_t>(d.filters * d.channels * RS));
    conv_detail::pack_filters_by_channel(filters, d.filters, d.channels, d.kernel, d.kernel, b, out.packed.data());
    return true;
}

bool conv2d_can_stage(SimdIsa isa, const core::Conv2dDesc& d) { return conv_path(isa, d) == ConvPath::Channels; }

void conv2d_parallel_prepared(const Conv2dFilters& f, const float* input, float* output) {
    if (conv_path(f.isa, f.desc) == ConvPath::Gemm) {
        conv2d_gemm(f.isa, f.desc, input, f.source, nullptr, output);
        return;
    }
    run_direct(f.isa, f.desc, input, f.data(), output);
}

void conv2d_parallel(const core::Conv2dDesc& d, const float* input, const float* filters, float* output) {
    run_for_isa(best_simd_isa(), d, input, filters, nullptr, output);
}

void conv2d_parallel_bias(const core::Conv2dDesc& d, const float* input, const float* filters, const float* bias,
                          float* output) {
    run_for_isa(best_simd_isa(), d, input, filters, bias, output);
}

std::string conv2d_parallel_implementation(const core::Conv2dDesc& d) {
    return conv2d_parallel_implementation(d, best_simd_isa());
}

std::string conv2d_parallel_implementation(const core::Conv2dDesc& d, SimdIsa isa) {
    const int threads = ThreadPool::shared().size();
    std::string s = "direct, " + std::string(simd_isa_name(isa)) + " (" + std::to_string(simd_isa_lanes(isa)) +
                    " floats)";
    const int64_t block = channel_block_for(isa, d);
    if (conv_path(isa, d) == ConvPath::Gemm) {
        // Kept short like the kernels' lines (the lesson's timing table shows it beside the verdict).
        s = "im2col + GEMM, " + std::string(simd_isa_name(isa)) + " (" + std::to_string(simd_isa_lanes(isa)) +
            " floats), " + (isa == SimdIsa::Avx512 ? "12 filters x 32" : "6 filters x 16") +
            " positions in registers (" +
            (d.stride > 1 ? "stride " + std::to_string(d.stride) : std::string("one input channel")) + ")";
    } else if (d.stride > 1) {
        s += ", stride " + std::to_string(d.stride) + ": plain loop over padded rows";
    } else if (block > 0) {
        // As short as the column kernel's line: the lesson's timing table shows it beside the verdict.
        s += ", " + std::to_string(block) + " output channels x " + std::to_string(isa == SimdIsa::Avx512 ? 12 : 6) +
             " pixels in registers";
    } else if (isa == SimdIsa::Avx512) {
        s += ", up to 4 filters x 64 columns in registers";
    } else if (isa == SimdIsa::Avx2Fma) {
        s += ", up to 4 filters x 16 columns in registers";
    } else {
        s += ", 4 filters x 16 columns per block";
    }
    return s + ", " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

}  // namespace gpulab::cpu
