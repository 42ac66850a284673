// The BF16 matrix product on AMX tiles (see gemm_bf16.h). core/CMakeLists.txt compiles this file with
// -mavx512f -mamx-tile -mamx-bf16; gemm_bf16.cpp calls it only where the CPU has AMX-BF16 and Linux
// has let this process use the tiles (tiles_permitted() below).
//
// What it computes: C (FP32, m x n) = round_bf16(A) x round_bf16(B), the sums in FP32, like the
// VDPBF16PS kernel beside it; only the instruction differs.
//
// [SECTION] the instruction
// AMX adds eight tile registers of up to 16 rows x 64 bytes to the core, and TDPBF16PS, which does
//
//     C[16 x 16 FP32] += A[16 x 32 BF16] x B[32 x 16 BF16]          (8,192 multiply-adds)
//
// in one instruction: a CPU's tensor core. B's tile holds k in pairs, like VDPBF16PS's (row p of the
// tile = the 16 words bf16(B[2p][j]) | bf16(B[2p+1][j]) << 16). One core of the Xeon of
// docs/benchmarks.md (session 15) issued 3.25 TFLOP/s of them: near 3 GHz about 1,000 FLOP per cycle,
// some 16 times its FP32 FMAs' 64.
//
// [SECTION] the picture
// Tiles 0-3 hold a 32 x 32 block of C, 4 and 5 two A tiles (rows i..i+15, i+16..i+31), 6 and 7 two
// B tiles (columns j..j+15, j+16..j+31); per 32 values of k, four loads and four TDPBF16PS:
//
//                B(j)   B(j+16)
//      A(i)      C0     C1             C0 += A(i) B(j)      C1 += A(i) B(j+16)
//      A(i+16)   C2     C3             C2 += A(i+16) B(j)   C3 += A(i+16) B(j+16)
//
// Packing: both inputs are rounded to BF16 once per call and stored tile by tile (1 KiB each, rows 64
// bytes apart), A as [row tile][k tile][16 rows][32 k], B as [column tile][k tile][16 pairs][16
// columns]; m, n and k are padded with zeros to whole 32 x 32 blocks and 32 values of k, so every tile
// is full and the tile configuration never changes.
//
// [SECTION] blocks and threads
// k is cut into blocks of 512 (16 k tiles): two B tiles of a block (32 KiB) stay in L1 while the A
// tiles of a task's rows (128 rows: 128 KiB) stream from L2. A task is 128 rows x 256 columns of C;
// tasks go to the pool's threads (the caller included). Each thread loads the tile configuration
// before its first tile instruction and releases the tiles after its last (the registers are per
// thread, and released tiles cost nothing at a context switch). C is added to block by block, so each
// output is summed k = 0, 1, 2, ... in blocks of 32 (inside one TDPBF16PS the order is the hardware's).
// Edge blocks of C (past m or n) go through a 32 x 32 buffer on the stack.
//
// Numbers: TDPBF16PS treats BF16 subnormal inputs as zero and flushes subnormal results to zero (Intel's
// description of the instruction), like VDPBF16PS; tests/test_gemm_bf16.cpp checks both kernels.
#include "gemm_bf16_isa.h"

#if defined(__AVX512F__) && defined(__AMX_TILE__) && defined(__AMX_BF16__) && defined(__linux__)

#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "bf16_avx512_inline.h"
#include "runtime/thread_pool.h"

#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12's AVX-512 headers (see gemm_bf16_avx512bf16.cpp)

namespace gpulab::cpu::bf16_detail {

namespace {

constexpr std::int64_t kTileRows = 16;   // rows of every tile; FP32 columns of a C tile
constexpr std::int64_t kTileK = 32;      // BF16 values of k in one A tile row (64 bytes)
constexpr std::int64_t kTileWords = 256;  // 1 KiB: 16 rows x 16 32-bit words
constexpr std::int64_t kBlockK = 16;      // k tiles per block (512 values of k)
constexpr std::int64_t kTaskRowTiles = 8;  // 128 rows of C per task
constexpr std::int64_t kTaskColTiles = 16;  // 256 columns of C per task

// [SECTION] permission and configuration

// Linux keeps AMX's 8 KiB of tile state off until a process asks for it (arch_prctl, Linux 5.16+);
// a tile instruction before that kills the process with SIGILL. Asked once, for the whole process.
bool request_tiles() {
    constexpr long kReqXcompPerm = 0x1023;  // ARCH_REQ_XCOMP_PERM, <asm/prctl.h>
    constexpr long kXtileData = 18;         // XFEATURE_XTILEDATA
    return syscall(SYS_arch_prctl, kReqXcompPerm, kXtileData) == 0;
}

// The 64-byte tile configuration (palette 1): every tile 16 rows of 64 bytes.
struct alignas(64) TileConfig {
    std::uint8_t palette = 1;
    std::uint8_t start_row = 0;
    std::uint8_t reserved[14] = {};
    std::uint16_t bytes_per_row[16] = {};
    std::uint8_t rows[16] = {};
};

// Loads the configuration on construction, releases the tiles on destruction: one per thread's task batch.
struct TileScope {
    TileScope() {
        TileConfig config;
        for (int t = 0; t < 8; ++t) {
            config.bytes_per_row[t] = 64;
            config.rows[t] = static_cast<std::uint8_t>(kTileRows);
        }
        _tile_loadconfig(&config);
    }
    ~TileScope() { _tile_release(); }
    TileScope(const TileScope&) = delete;
    TileScope& operator=(const TileScope&) = delete;
};

// [SECTION] packing

struct Packed {
    std::int64_t row_tiles, col_tiles, k_tiles;  // row_tiles and col_tiles even: whole 32 x 32 blocks
    const std::uint32_t* a;
    const std::uint32_t* b;
    const std::uint32_t* a_tile(std::int64_t it, std::int64_t kt) const { return a + (it * k_tiles + kt) * kTileWords; }
    const std::uint32_t* b_tile(std::int64_t jt, std::int64_t kt) const { return b + (jt * k_tiles + kt) * kTileWords; }
};

// Row tile `it` of A, every k tile: row r of tile (it, kt) is A[16 it + r][32 kt .. 32 kt + 31] as BF16.
void pack_a_row_tile(const float* a, std::int64_t m, std::int64_t k, std::int64_t k_tiles, std::int64_t it,
                     std::uint32_t* out) {
    for (std::int64_t r = 0; r < kTileRows; ++r) {
        const std::int64_t i = it * kTileRows + r;
        for (std::int64_t kt = 0; kt < k_tiles; ++kt) {
            std::uint32_t* dst = out + kt * kTileWords + r * 16;
            if (i >= m) {
                _mm512_store_si512(dst, _mm512_setzero_si512());
                continue;
            }
            const std::int64_t e = kt * kTileK;
            const float* row = a + i * k + e;
            const __m512 x0 = _mm512_maskz_loadu_ps(first_lanes(k - e), row);
            const __m512 x1 = _mm512_maskz_loadu_ps(first_lanes(k - e - 16), row + 16);
            _mm512_store_si512(dst, _mm512_inserti64x4(_mm512_castsi256_si512(bf16_halves(x0)), bf16_halves(x1), 1));
        }
    }
}

// Column tile `jt` of B, every k tile: row q of tile (jt, kt) holds pair p = 16 kt + q of columns
// 16 jt .. 16 jt + 15; pairs past k and columns past n are zero.
void pack_b_col_tile(const float* b, std::int64_t n, std::int64_t k, std::int64_t k_tiles, std::int64_t jt,
                     std::uint32_t* out) {
    const std::int64_t j0 = jt * 16;
    const __mmask16 cols = first_lanes(n - j0);
    for (std::int64_t p = 0; p < k_tiles * 16; ++p) {
        std::uint32_t* dst = out + p * 16;  // tiles of one column tile follow each other: row 16 kt + q
        const std::int64_t k0 = 2 * p;
        const __m512 lo = k0 < k ? _mm512_maskz_loadu_ps(cols, b + k0 * n + j0) : _mm512_setzero_ps();
        const __m512 hi = k0 + 1 < k ? _mm512_maskz_loadu_ps(cols, b + (k0 + 1) * n + j0) : _mm512_setzero_ps();
        _mm512_store_si512(dst, pair_words(lo, hi));
    }
}

// [SECTION] the 32 x 32 block

// C block (rows 32 ib, columns 32 jb) = (C if accumulate, else 0) + the k tiles kt0 .. kt1 - 1.
void block_32x32(const Packed& p, std::int64_t ib, std::int64_t jb, std::int64_t kt0, std::int64_t kt1, float* c,
                 std::int64_t m, std::int64_t n, bool accumulate) {
    const std::int64_t i = ib * 32, j = jb * 32;
    const bool whole = i + 32 <= m && j + 32 <= n;
    alignas(64) float edge[32 * 32];
    float* dst = whole ? c + i * n + j : edge;
    const std::int64_t ld = whole ? n : 32;
    const std::int64_t ld_bytes = ld * static_cast<std::int64_t>(sizeof(float));
    if (!whole && accumulate) {
        for (std::int64_t r = 0; r < 32; ++r)
            for (std::int64_t col = 0; col < 32; ++col)
                edge[r * 32 + col] = i + r < m && j + col < n ? c[(i + r) * n + j + col] : 0.0f;
    }
    if (accumulate) {
        _tile_loadd(0, dst, ld_bytes);
        _tile_loadd(1, dst + 16, ld_bytes);
        _tile_loadd(2, dst + 16 * ld, ld_bytes);
        _tile_loadd(3, dst + 16 * ld + 16, ld_bytes);
    } else {
        _tile_zero(0);
        _tile_zero(1);
        _tile_zero(2);
        _tile_zero(3);
    }
    for (std::int64_t kt = kt0; kt < kt1; ++kt) {
        _tile_loadd(4, p.a_tile(2 * ib, kt), 64);
        _tile_loadd(5, p.a_tile(2 * ib + 1, kt), 64);
        _tile_loadd(6, p.b_tile(2 * jb, kt), 64);
        _tile_loadd(7, p.b_tile(2 * jb + 1, kt), 64);
        _tile_dpbf16ps(0, 4, 6);
        _tile_dpbf16ps(1, 4, 7);
        _tile_dpbf16ps(2, 5, 6);
        _tile_dpbf16ps(3, 5, 7);
    }
    _tile_stored(0, dst, ld_bytes);
    _tile_stored(1, dst + 16, ld_bytes);
    _tile_stored(2, dst + 16 * ld, ld_bytes);
    _tile_stored(3, dst + 16 * ld + 16, ld_bytes);
    if (!whole) {
        for (std::int64_t r = 0; r < 32 && i + r < m; ++r)
            std::memcpy(c + (i + r) * n + j, edge + r * 32, static_cast<std::size_t>(std::min<std::int64_t>(32, n - j)) * sizeof(float));
    }
}

// [SECTION] the product

void gemm(const float* a, const float* b, float* c, std::int64_t m, std::int64_t n, std::int64_t k) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) {
        std::fill(c, c + m * n, 0.0f);
        return;
    }
    Packed p{};
    p.row_tiles = (m + 31) / 32 * 2;
    p.col_tiles = (n + 31) / 32 * 2;
    p.k_tiles = (k + kTileK - 1) / kTileK;
    thread_local PackBuffer a_buf, b_buf;
    std::uint32_t* ap = a_buf.get(static_cast<std::size_t>(p.row_tiles * p.k_tiles * kTileWords));
    std::uint32_t* bp = b_buf.get(static_cast<std::size_t>(p.col_tiles * p.k_tiles * kTileWords));
    if (ap == nullptr || bp == nullptr) throw std::bad_alloc();
    p.a = ap;
    p.b = bp;

    ThreadPool& pool = ThreadPool::shared();
    pool.parallel_for(
        p.row_tiles, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t it = begin; it < end; ++it)
                pack_a_row_tile(a, m, k, p.k_tiles, it, ap + it * p.k_tiles * kTileWords);
        },
        4);
    pool.parallel_for(
        p.col_tiles, [&](std::int64_t begin, std::int64_t end) {
            for (std::int64_t jt = begin; jt < end; ++jt)
                pack_b_col_tile(b, n, k, p.k_tiles, jt, bp + jt * p.k_tiles * kTileWords);
        },
        4);

    const std::int64_t row_blocks = p.row_tiles / 2, col_blocks = p.col_tiles / 2;
    const std::int64_t task_row_blocks = kTaskRowTiles / 2, task_col_blocks = kTaskColTiles / 2;
    const std::int64_t row_tasks = (row_blocks + task_row_blocks - 1) / task_row_blocks;
    const std::int64_t col_tasks = (col_blocks + task_col_blocks - 1) / task_col_blocks;
    pool.parallel_for(
        row_tasks * col_tasks, [&](std::int64_t begin, std::int64_t end) {
            const TileScope tiles;
            for (std::int64_t task = begin; task < end; ++task) {
                const std::int64_t ib0 = (task / col_tasks) * task_row_blocks, jb0 = (task % col_tasks) * task_col_blocks;
                const std::int64_t ib1 = std::min(row_blocks, ib0 + task_row_blocks);
                const std::int64_t jb1 = std::min(col_blocks, jb0 + task_col_blocks);
                for (std::int64_t kt0 = 0; kt0 < p.k_tiles; kt0 += kBlockK) {
                    const std::int64_t kt1 = std::min(p.k_tiles, kt0 + kBlockK);
                    for (std::int64_t jb = jb0; jb < jb1; ++jb)
                        for (std::int64_t ib = ib0; ib < ib1; ++ib) block_32x32(p, ib, jb, kt0, kt1, c, m, n, kt0 > 0);
                }
            }
        },
        1);
}

const Bf16Kernel kKernel{&gemm, nullptr};  // rounding alone: the VDPBF16PS kernel's

}  // namespace

const Bf16Kernel* amx_kernel() { return &kKernel; }

bool tiles_permitted() {
    static const bool ok = request_tiles();
    return ok;
}

}  // namespace gpulab::cpu::bf16_detail

#else

namespace gpulab::cpu::bf16_detail {
const Bf16Kernel* amx_kernel() { return nullptr; }
bool tiles_permitted() { return false; }
}  // namespace gpulab::cpu::bf16_detail

#endif
