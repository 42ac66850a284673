// The tensor-core GEMM's padding, packing and grid (see mma_launch.h).
#include "mma_launch.h"

#include "ops/fp_formats.h"

namespace gpulab::kern {

namespace {

int64_t round_up(int64_t v, int64_t to) { return (v + to - 1) / to * to; }

core::FpFormat format_of(MmaInput in) { return in == MmaInput::Fp16 ? core::FpFormat::Fp16 : core::FpFormat::Bf16; }

}  // namespace

const char* mma_input_label(MmaInput in) { return in == MmaInput::Fp16 ? "FP16" : "BF16"; }

std::string mma_gemm_problem(int64_t m, int64_t n, int64_t k) {
    if (m < 1 || n < 1 || k < 1)
        return "a matrix product needs at least one row, column and term (got " + std::to_string(m) + " x " +
               std::to_string(n) + " x " + std::to_string(k) + ")";
    if (m > kMmaMaxSide || n > kMmaMaxSide || k > kMmaMaxSide)
        return "the tensor-core kernel takes sides up to " + std::to_string(kMmaMaxSide) + " (got " +
               std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k) + ")";
    return "";
}

MmaGemmShape mma_gemm_padded(int64_t m, int64_t n, int64_t k) {
    return {static_cast<int>(round_up(m, kMmaM)), static_cast<int>(round_up(n, kMmaN)),
            static_cast<int>(round_up(k, kMmaK))};
}

LaunchShape mma_gemm_launch(const MmaGemmShape& s, MmaKernel kernel) {
    LaunchShape l;
    l.block.x = kMmaThreadsPerBlock;
    if (kernel == MmaKernel::Tiled) {
        l.grid.x = static_cast<unsigned>((s.n + kMmaBlockTile - 1) / kMmaBlockTile);
        l.grid.y = static_cast<unsigned>((s.m + kMmaBlockTile - 1) / kMmaBlockTile);
        return l;
    }
    l.grid.x = static_cast<unsigned>((s.tiles() + kMmaWarpsPerBlock - 1) / kMmaWarpsPerBlock);
    return l;
}

const char* mma_kernel_label(MmaKernel kernel) {
    return kernel == MmaKernel::Tiled ? "64 x 64 tiles in shared memory" : "one warp per 16 x 8 tile";
}

MmaOperands pack_mma_operands(MmaInput in, const float* a, const float* b, const float* c, int64_t m, int64_t n,
                              int64_t k) {
    const core::FpFormat f = format_of(in);
    MmaOperands o;
    o.shape = mma_gemm_padded(m, n, k);
    const int64_t M = o.shape.m, N = o.shape.n, K = o.shape.k, pairs = K / 2;
    o.a.assign(static_cast<std::size_t>(M * pairs), 0u);
    o.bt.assign(static_cast<std::size_t>(N * pairs), 0u);
    o.c.assign(static_cast<std::size_t>(M * N), 0.0f);
    // Element (r, kk) goes into pair kk / 2 of row r, the even column in the low 16 bits.
    const auto put = [](std::vector<uint32_t>& v, int64_t row, int64_t kk, int64_t pairs_per_row, uint32_t bits) {
        uint32_t& word = v[static_cast<std::size_t>(row * pairs_per_row + kk / 2)];
        word |= (bits & 0xFFFFu) << ((kk & 1) * 16);
    };
    for (int64_t r = 0; r < m; ++r)
        for (int64_t kk = 0; kk < k; ++kk) put(o.a, r, kk, pairs, core::encode(f, a[r * k + kk]));
    for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t j = 0; j < n; ++j) put(o.bt, j, kk, pairs, core::encode(f, b[kk * n + j]));
    if (c != nullptr)
        for (int64_t r = 0; r < m; ++r)
            for (int64_t j = 0; j < n; ++j) o.c[static_cast<std::size_t>(r * N + j)] = c[r * n + j];
    return o;
}

void unpack_mma_result(const MmaGemmShape& s, const float* d_padded, float* d, int64_t m, int64_t n) {
    for (int64_t r = 0; r < m; ++r)
        for (int64_t j = 0; j < n; ++j) d[r * n + j] = d_padded[r * s.n + j];
}

}  // namespace gpulab::kern
