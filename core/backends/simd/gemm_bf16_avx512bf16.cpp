// The BF16 matrix product with VDPBF16PS (see gemm_bf16.h). core/CMakeLists.txt compiles this file
// with -mavx512f -mavx512bf16 and gemm_bf16.cpp calls it only on a CPU that has AVX512_BF16.
//
// What it computes: C (FP32, m x n) = round_bf16(A) x round_bf16(B), the sums in FP32.
//
// [SECTION] the picture
// Both inputs are rounded to BF16 and re-laid out once per call ("packing"), so that the inner loop
// reads both with unit stride. k is taken two at a time (a pair: k = 2p and 2p + 1; an odd k gets a
// zero partner), because VDPBF16PS multiplies pairs: each 32-bit lane holds two BF16 numbers.
//
//   B, panel of 32 columns, pair p:    word j = B[2p][j] | B[2p+1][j] << 16     (2 registers)
//   A, panel of 12 rows,    pair p:    word r = A[r][2p] | A[r][2p+1] << 16     (broadcast per row)
//
//   one micro-tile of C, 12 rows x 32 columns = 24 registers of 16 FP32 sums:
//
//          B pair p:  [ j 0..15 ][ j 16..31 ]
//   A[0] pair p  ->   acc[0][0]  acc[0][1]      acc[r][h] += A[r][2p]   * B[2p][j]
//   A[1] pair p  ->   acc[1][0]  acc[1][1]                 + A[r][2p+1] * B[2p+1][j]
//     ...                ...        ...          (one VDPBF16PS: 16 lanes x 2 products)
//   A[11]pair p  ->   acc[11][0] acc[11][1]
//
// Per pair: 2 loads of B, 12 broadcasts of A, 24 VDPBF16PS = 768 multiply-adds; the FP32 kernel
// (gemm_kernel_impl.h) does 384 per the same number of instructions.
//
// [SECTION] blocks and threads
// k is cut into blocks of 128 pairs: a block of B's panel (128 x 32 words = 16 KiB) stays in L1 while
// the 8 row panels of a task (96 rows, 48 KiB of A) stream past it from L2. A task is 96 rows x 256
// columns of C; tasks go to the pool's threads (the caller included). The sum over k continues from
// block to block through C, in order, so each output is summed k = 0, 1, 2, ... as in the reference.
// Edges: rows past m are zero rows of A that are never stored; columns past n are masked loads and
// stores; k past the end is a zero pair.
//
// Rounding: round to nearest, ties to even, as core::round_to(Bf16, x), bit for bit
// (bf16_avx512_inline.h; tests/test_gemm_bf16.cpp checks every top half with the bottom halves that
// decide a rounding).
// Verified by tests/test_gemm_bf16.cpp against core::matmul_reduced({Bf16, Fp32}).
#include "gemm_bf16_isa.h"

#if defined(__AVX512F__) && defined(__AVX512BF16__)

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "bf16_avx512_inline.h"
#include "runtime/thread_pool.h"

// GCC 12's AVX-512 headers build their "undefined" registers from an uninitialised variable and then
// warn about it where the intrinsics are inlined (a known false positive, fixed in GCC 13).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace gpulab::cpu::bf16_detail {

namespace {

constexpr int kMr = 12;                // rows of C per micro-tile
constexpr int kNr = 32;                // columns of C per micro-tile: two registers of 16
constexpr std::int64_t kKcPairs = 128;  // pairs of k per block
constexpr std::int64_t kMcPanels = 8;   // row panels per task (96 rows)
constexpr std::int64_t kNcPanels = 8;   // column panels per task (256 columns)

void round_bits(const float* in, std::uint16_t* out, std::int64_t count) {
    for (std::int64_t i = 0; i < count; i += 16) {
        const __mmask16 mask = first_lanes(count - i);
        const __m512i w = _mm512_srli_epi32(rne_high(_mm512_maskz_loadu_ps(mask, in + i)), 16);
        _mm512_mask_cvtepi32_storeu_epi16(out + i, mask, w);
    }
}

// [SECTION] packing

// Column panel `jp` of B: for each pair p, 32 words (columns j0 .. j0 + 31).
void pack_b_panel(const float* b, std::int64_t n, std::int64_t k, std::int64_t pairs, std::int64_t jp,
                  std::uint32_t* out) {
    const std::int64_t j0 = jp * kNr;
    const __mmask16 m0 = first_lanes(n - j0), m1 = first_lanes(n - j0 - 16);
    for (std::int64_t p = 0; p < pairs; ++p) {
        const float* r0 = b + 2 * p * n + j0;
        const bool has_odd = 2 * p + 1 < k;
        const float* r1 = r0 + n;
        const __m512 lo0 = _mm512_maskz_loadu_ps(m0, r0), lo1 = _mm512_maskz_loadu_ps(m1, r0 + 16);
        const __m512 hi0 = has_odd ? _mm512_maskz_loadu_ps(m0, r1) : _mm512_setzero_ps();
        const __m512 hi1 = has_odd ? _mm512_maskz_loadu_ps(m1, r1 + 16) : _mm512_setzero_ps();
        _mm512_store_si512(out + p * kNr, pair_words(lo0, hi0));
        _mm512_store_si512(out + p * kNr + 16, pair_words(lo1, hi1));
    }
}

// Row panel `ip` of A: for each pair p, 12 words (rows i0 .. i0 + 11; rows past m are zero).
void pack_a_panel(const float* a, std::int64_t m, std::int64_t k, std::int64_t pairs, std::int64_t ip,
                  std::uint32_t* out) {
    alignas(64) std::uint32_t words[16];
    for (int r = 0; r < kMr; ++r) {
        const std::int64_t i = ip * kMr + r;
        if (i >= m) {
            for (std::int64_t p = 0; p < pairs; ++p) out[p * kMr + r] = 0;
            continue;
        }
        const float* row = a + i * k;
        // 32 floats of the row (16 pairs) at a time: their BF16 halves in order are the pair words.
        for (std::int64_t p0 = 0; p0 < pairs; p0 += 16) {
            const std::int64_t e = 2 * p0;
            const __m512 x0 = _mm512_maskz_loadu_ps(first_lanes(k - e), row + e);
            const __m512 x1 = _mm512_maskz_loadu_ps(first_lanes(k - e - 16), row + e + 16);
            const __m256i h0 = bf16_halves(x0), h1 = bf16_halves(x1);
            _mm512_store_si512(words, _mm512_inserti64x4(_mm512_castsi256_si512(h0), h1, 1));
            const std::int64_t count = std::min<std::int64_t>(16, pairs - p0);
            for (std::int64_t t = 0; t < count; ++t) out[(p0 + t) * kMr + r] = words[t];
        }
    }
}

// [SECTION] the micro-tile

// acc = (C if accumulate, else 0) + sum over `pairs` pairs; `rows` rows and the columns in m0 / m1 stored.
inline void micro_tile(std::int64_t pairs, const std::uint32_t* ap, const std::uint32_t* bp, float* c, std::int64_t ldc,
                       int rows, __mmask16 m0, __mmask16 m1, bool accumulate) {
    __m512 acc[kMr][2];
#pragma GCC unroll 12
    for (int r = 0; r < kMr; ++r) {
        const bool load = accumulate && r < rows;
        acc[r][0] = load ? _mm512_maskz_loadu_ps(m0, c + r * ldc) : _mm512_setzero_ps();
        acc[r][1] = load ? _mm512_maskz_loadu_ps(m1, c + r * ldc + 16) : _mm512_setzero_ps();
    }
    for (std::int64_t p = 0; p < pairs; ++p) {
        const __m512bh b0 = reinterpret_cast<__m512bh>(_mm512_load_si512(bp + p * kNr));
        const __m512bh b1 = reinterpret_cast<__m512bh>(_mm512_load_si512(bp + p * kNr + 16));
#pragma GCC unroll 12
        for (int r = 0; r < kMr; ++r) {
            const __m512bh av = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(ap[p * kMr + r])));
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], av, b0);
            acc[r][1] = _mm512_dpbf16_ps(acc[r][1], av, b1);
        }
    }
#pragma GCC unroll 12
    for (int r = 0; r < kMr; ++r) {
        if (r < rows) {
            _mm512_mask_storeu_ps(c + r * ldc, m0, acc[r][0]);
            _mm512_mask_storeu_ps(c + r * ldc + 16, m1, acc[r][1]);
        }
    }
}

void gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {
        for (std::int64_t i = 0; i < m * n; ++i) c[i] = 0.0f;
        return;
    }
    const std::int64_t pairs = (k + 1) / 2;
    const std::int64_t row_panels = (m + kMr - 1) / kMr, col_panels = (n + kNr - 1) / kNr;
    thread_local PackBuffer a_buf, b_buf;
    std::uint32_t* ap = a_buf.get(static_cast<std::size_t>(row_panels * pairs * kMr));
    std::uint32_t* bp = b_buf.get(static_cast<std::size_t>(col_panels * pairs * kNr));
    if (ap == nullptr || bp == nullptr) throw std::bad_alloc();

    ThreadPool& pool = ThreadPool::shared();
    pool.parallel_for(
        row_panels, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t ip = begin; ip < end; ++ip) pack_a_panel(a, m, k, pairs, ip, ap + ip * pairs * kMr);
        },
        4);
    pool.parallel_for(
        col_panels, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t jp = begin; jp < end; ++jp) pack_b_panel(b, n, k, pairs, jp, bp + jp * pairs * kNr);
        },
        2);

    const std::int64_t row_tasks = (row_panels + kMcPanels - 1) / kMcPanels;
    const std::int64_t col_tasks = (col_panels + kNcPanels - 1) / kNcPanels;
    pool.parallel_for(
        row_tasks * col_tasks, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t task = begin; task < end; ++task) {
                const std::int64_t ip0 = (task / col_tasks) * kMcPanels, jp0 = (task % col_tasks) * kNcPanels;
                const std::int64_t ip1 = std::min(row_panels, ip0 + kMcPanels), jp1 = std::min(col_panels, jp0 + kNcPanels);
                for (std::int64_t p0 = 0; p0 < pairs; p0 += kKcPairs) {
                    const std::int64_t block = std::min(kKcPairs, pairs - p0);
                    for (std::int64_t jp = jp0; jp < jp1; ++jp) {
                        const std::int64_t j = jp * kNr;
                        const __mmask16 m0 = first_lanes(n - j), m1 = first_lanes(n - j - 16);
                        const std::uint32_t* bblock = bp + (jp * pairs + p0) * kNr;
                        for (std::int64_t ip = ip0; ip < ip1; ++ip) {
                            const std::int64_t i = ip * kMr;
                            const int rows = static_cast<int>(std::min<std::int64_t>(kMr, m - i));
                            micro_tile(block, ap + (ip * pairs + p0) * kMr, bblock, c + i * n + j, n, rows, m0, m1,
                                       p0 > 0);
                        }
                    }
                }
            }
        },
        1);
}

const Bf16Kernel kKernel{&gemm, &round_bits};

}  // namespace

const Bf16Kernel* avx512bf16_kernel() { return &kKernel; }

}  // namespace gpulab::cpu::bf16_detail

#else

namespace gpulab::cpu::bf16_detail {
const Bf16Kernel* avx512bf16_kernel() { return nullptr; }
}  // namespace gpulab::cpu::bf16_detail

#endif
