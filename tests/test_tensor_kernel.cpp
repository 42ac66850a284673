// The tensor-core kernel (kernels/tensor/mma_kernels.cuh) on the SIMT simulator, and the
// simulator's mma.sync (kernels/sim/sim_mma.h). "tensor" suite, every machine.
//
// Tolerance: zero. The simulated instruction adds C and the 16 products of a tile one at a time,
// k ascending, each a fused multiply-add in FP32 (sim_mma.h), and the kernel carries the FP32
// accumulator from one 16-wide slice of K to the next, so every output is
// fma(a[K-1], b[K-1], ... fma(a[0], b[0], c)) on the same rounded inputs: exactly what
// core::matmul_reduced computes with FP32 accumulation. Any difference is a wrong element, not
// rounding. (A real tensor core's internal order and rounding are not documented: the gpu suite
// below allows the FP32 summation bound instead.)
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "ops/fp_formats.h"
#include "ops/mixed_matmul.h"
#include "gpu_backends.h"
#include "sim/sim_kernels.h"
#include "tensor/mma_fragment.h"
#include "tensor/mma_launch.h"
#include "mma_gemm_rows.h"
#include "tensor/tensor_gemm.h"

// Last: the device environment defines CUDA's keywords as macros for the kernels below.
#include "sim/sim_device_env.h"

using namespace gpulab;
using kern::MmaInput;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::vector<float> random_matrix(int64_t count, uint64_t seed, float scale = 1.0f) {
    std::vector<float> v(static_cast<std::size_t>(count));
    uint64_t s = seed;
    for (float& x : v) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x = scale * (static_cast<float>(s >> 40) / 16777216.0f * 2.0f - 1.0f);
    }
    return v;
}

core::FpFormat format_of(MmaInput in) { return in == MmaInput::Fp16 ? core::FpFormat::Fp16 : core::FpFormat::Bf16; }

// The reference: cpu-scalar's loop on the same rounded inputs, FP32 accumulation, starting from C.
std::vector<float> reference(MmaInput in, const std::vector<float>& a, const std::vector<float>& b,
                             const std::vector<float>* c, int64_t m, int64_t n, int64_t k) {
    std::vector<float> d(static_cast<std::size_t>(m * n));
    core::matmul_reduced(a.data(), b.data(), d.data(), m, n, k, {format_of(in), core::FpFormat::Fp32});
    if (c != nullptr) {
        // matmul_reduced starts its sums at 0; with C the same loop starts at C.
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                float acc = (*c)[static_cast<std::size_t>(i * n + j)];
                for (int64_t kk = 0; kk < k; ++kk)
                    acc = core::multiply_add(core::FpFormat::Fp32, core::round_to(format_of(in), a[static_cast<std::size_t>(i * k + kk)]),
                                             core::round_to(format_of(in), b[static_cast<std::size_t>(kk * n + j)]), acc);
                d[static_cast<std::size_t>(i * n + j)] = acc;
            }
        }
    }
    return d;
}

int bit_differences(const std::vector<float>& x, const std::vector<float>& y) {
    int diff = 0;
    for (std::size_t i = 0; i < x.size(); ++i) diff += std::memcmp(&x[i], &y[i], sizeof(float)) != 0 ? 1 : 0;
    return diff;
}

// A broken kernel: lane 7 of the warp returns before the instruction.
__global__ void mma_missing_lane_kernel(kern::GlobalPtr<float> out) {
    if (threadIdx.x == 7) return;
    const uint32_t a[4] = {0, 0, 0, 0};
    const uint32_t b[2] = {0, 0};
    float acc[4] = {0, 0, 0, 0};
    kern::mma_sync_m16n8k16<MmaInput::Fp16>(acc, a, b, acc);
    out[threadIdx.x] = acc[0];
}

// Every thread of the block reaches the instruction: right for a block of 32, not for one of 16.
__global__ void mma_every_thread_kernel(kern::GlobalPtr<float> out) {
    const uint32_t a[4] = {0, 0, 0, 0};
    const uint32_t b[2] = {0, 0};
    float acc[4] = {1, 1, 1, 1};
    kern::mma_sync_m16n8k16<MmaInput::Fp16>(acc, a, b, acc);
    out[threadIdx.x] = acc[0];
}

// Another: one lane, one of them all at __syncthreads() and the other at the mma.
__global__ void mma_lane_at_barrier_kernel(kern::GlobalPtr<float> out) {
    if (threadIdx.x == 3) {
        __syncthreads();
        return;
    }
    const uint32_t a[4] = {0, 0, 0, 0};
    const uint32_t b[2] = {0, 0};
    float acc[4] = {0, 0, 0, 0};
    kern::mma_sync_m16n8k16<MmaInput::Fp16>(acc, a, b, acc);
    out[threadIdx.x] = acc[0];
    __syncthreads();
}

}  // namespace

TEST_SUITE("tensor") {
    TEST_CASE("the PTX fragment layout: lane 5's elements worked out by hand") {
        // Lane 5: g = 5 / 4 = 1, t = 5 % 4 = 1. A: rows 1 and 9, columns 2t = 2, 3 and 2t + 8 = 10, 11.
        const int a_rows[8] = {1, 1, 9, 9, 1, 1, 9, 9}, a_cols[8] = {2, 3, 2, 3, 10, 11, 10, 11};
        for (int i = 0; i < 8; ++i) {
            CHECK(kern::mma_a_element(5, i).row == a_rows[i]);
            CHECK(kern::mma_a_element(5, i).col == a_cols[i]);
        }
        // B: rows (k) 2, 3, 10, 11 of column g = 1.
        const int b_rows[4] = {2, 3, 10, 11};
        for (int i = 0; i < 4; ++i) {
            CHECK(kern::mma_b_element(5, i).row == b_rows[i]);
            CHECK(kern::mma_b_element(5, i).col == 1);
        }
        // C/D: (1, 2), (1, 3), (9, 2), (9, 3).
        const int c_rows[4] = {1, 1, 9, 9}, c_cols[4] = {2, 3, 2, 3};
        for (int i = 0; i < 4; ++i) {
            CHECK(kern::mma_cd_element(5, i).row == c_rows[i]);
            CHECK(kern::mma_cd_element(5, i).col == c_cols[i]);
        }
        // Lane 31: g = 7, t = 3: A's last element a7 is (15, 15), D's last (15, 7), B's last (15, 7).
        CHECK(kern::mma_a_element(31, 7).row == 15);
        CHECK(kern::mma_a_element(31, 7).col == 15);
        CHECK(kern::mma_cd_element(31, 3).row == 15);
        CHECK(kern::mma_cd_element(31, 3).col == 7);
        CHECK(kern::mma_b_element(31, 3).row == 15);
        CHECK(kern::mma_b_element(31, 3).col == 7);
        // Every element of each matrix is held by exactly one lane and register.
        std::set<int> a, b, cd;
        for (int lane = 0; lane < 32; ++lane) {
            for (int i = 0; i < 8; ++i) a.insert(kern::mma_a_element(lane, i).row * 16 + kern::mma_a_element(lane, i).col);
            for (int i = 0; i < 4; ++i) {
                b.insert(kern::mma_b_element(lane, i).row * 8 + kern::mma_b_element(lane, i).col);
                cd.insert(kern::mma_cd_element(lane, i).row * 8 + kern::mma_cd_element(lane, i).col);
            }
        }
        CHECK(a.size() == 256);
        CHECK(b.size() == 128);
        CHECK(cd.size() == 128);
    }

    TEST_CASE("the lane data comes from the simulated kernel and matches the PTX layout") {
        for (MmaInput in : {MmaInput::Fp16, MmaInput::Bf16}) {
            const sim::MmaLaneData d = sim::mma_lane_data(in);
            REQUIRE_MESSAGE(d.ok, d.error);
            CHECK(d.instructions == 2);
            for (int lane = 0; lane < 32; ++lane) {
                const auto l = static_cast<std::size_t>(lane);
                for (int i = 0; i < 8; ++i) {
                    CHECK(d.a[l][static_cast<std::size_t>(i)].row == kern::mma_a_element(lane, i).row);
                    CHECK(d.a[l][static_cast<std::size_t>(i)].col == kern::mma_a_element(lane, i).col);
                }
                for (int i = 0; i < 4; ++i) {
                    CHECK(d.b[l][static_cast<std::size_t>(i)].row == kern::mma_b_element(lane, i).row);
                    CHECK(d.c[l][static_cast<std::size_t>(i)].col == kern::mma_cd_element(lane, i).col);
                    CHECK(d.d[l][static_cast<std::size_t>(i)].row == kern::mma_cd_element(lane, i).row);
                    CHECK(d.d[l][static_cast<std::size_t>(i)].col == kern::mma_cd_element(lane, i).col);
                }
            }
            // Lane 5 holds A[1][2] (the owner table the view draws from says so too).
            CHECK(d.a_owner[1][2] == 5);
            CHECK(d.a_owner[9][11] == 5);
            CHECK(d.b_owner[10][1] == 5);
            CHECK(d.d_owner[9][3] == 5);
            CHECK(d.a_owner[0][0] == 0);
            CHECK(d.d_owner[15][7] == 31);
        }
    }

    TEST_CASE("one tile on cuda-sim equals cpu-scalar bit for bit - FP16 and BF16 with C") {
        for (MmaInput in : {MmaInput::Fp16, MmaInput::Bf16}) {
            const auto a = random_matrix(16 * 16, 1), b = random_matrix(16 * 8, 2), c = random_matrix(16 * 8, 3);
            std::vector<float> d(16 * 8, -1.0f);
            const sim::Result r = sim::run_mma_gemm(in, a.data(), b.data(), c.data(), d.data(), 16, 8, 16);
            REQUIRE_MESSAGE(r.ok, r.error);
            CHECK(r.stats.threads == 128);  // one block of four warps; three have no tile and return
            CHECK(bit_differences(d, reference(in, a, b, &c, 16, 8, 16)) == 0);
        }
    }

    TEST_CASE("whole matrices on cuda-sim equal cpu-scalar bit for bit - padding included") {
        struct Shape {
            int64_t m, n, k;
        };
        for (Shape s : {Shape{64, 64, 64}, Shape{37, 19, 45}, Shape{1, 1, 1}, Shape{16, 8, 160}, Shape{130, 9, 17}}) {
            for (MmaInput in : {MmaInput::Fp16, MmaInput::Bf16}) {
                const auto a = random_matrix(s.m * s.k, 11), b = random_matrix(s.k * s.n, 12);
                std::vector<float> d(static_cast<std::size_t>(s.m * s.n), -1.0f);
                const sim::Result r = sim::run_mma_gemm(in, a.data(), b.data(), nullptr, d.data(), s.m, s.n, s.k);
                REQUIRE_MESSAGE(r.ok, r.error);
                INFO("shape " << s.m << " x " << s.n << " x " << s.k << ", " << kern::mma_input_label(in));
                CHECK(bit_differences(d, reference(in, a, b, nullptr, s.m, s.n, s.k)) == 0);
            }
        }
    }

    TEST_CASE("the tiled kernel on cuda-sim equals cpu-scalar bit for bit - edges of blocks and slices - with C") {
        // Shapes past one 64 x 64 block in each direction and not a multiple of it, K a multiple of
        // 32 and K ending halfway through a slice (the second 16 skipped), and the smallest product.
        struct Shape {
            int64_t m, n, k;
        };
        for (Shape s : {Shape{64, 64, 64}, Shape{130, 72, 48}, Shape{1, 1, 1}, Shape{70, 136, 96}, Shape{16, 8, 16}}) {
            for (MmaInput in : {MmaInput::Fp16, MmaInput::Bf16}) {
                const auto a = random_matrix(s.m * s.k, 13), b = random_matrix(s.k * s.n, 14), c = random_matrix(s.m * s.n, 15);
                std::vector<float> d(static_cast<std::size_t>(s.m * s.n), -1.0f);
                sim::Options o;
                o.count_bank_conflicts = s.m == 64 && s.n == 64;
                const sim::Result r = sim::run_mma_gemm(in, a.data(), b.data(), c.data(), d.data(), s.m, s.n, s.k, o,
                                                        kern::MmaKernel::Tiled);
                REQUIRE_MESSAGE(r.ok, r.error);
                INFO("shape " << s.m << " x " << s.n << " x " << s.k << ", " << kern::mma_input_label(in));
                CHECK(bit_differences(d, reference(in, a, b, &c, s.m, s.n, s.k)) == 0);
                if (o.count_bank_conflicts) {
                    // The padded rows (20 words) put every warp's fragment reads in 32 different banks.
                    MESSAGE("tiled kernel, 64 x 64 x 64: " << r.stats.shared_requests << " shared requests, "
                                                           << r.stats.shared_wavefronts << " bank passes");
                }
            }
        }
        const kern::LaunchShape l = kern::mma_gemm_launch(kern::mma_gemm_padded(130, 72, 48), kern::MmaKernel::Tiled);
        CHECK(l.block.x == 128);
        CHECK(l.grid.x == 2);  // 72 columns: two blocks of 64
        CHECK(l.grid.y == 3);  // 130 rows (144 padded): three
        CHECK(std::string(kern::mma_kernel_label(kern::MmaKernel::Tiled)) == "64 x 64 tiles in shared memory");
    }

    TEST_CASE("NaN and infinity propagate through the simulated instruction as IEEE arithmetic does") {
        auto a = random_matrix(16 * 16, 5), b = random_matrix(16 * 8, 6);
        a[3 * 16 + 4] = std::numeric_limits<float>::quiet_NaN();  // row 3 of D becomes NaN
        b[2 * 8 + 5] = 1e5f;                                      // FP16: infinity in column 5
        std::vector<float> d(16 * 8);
        const sim::Result r = sim::run_mma_gemm(MmaInput::Fp16, a.data(), b.data(), nullptr, d.data(), 16, 8, 16);
        REQUIRE(r.ok);
        CHECK(std::isnan(d[3 * 8 + 0]));
        CHECK(std::isinf(d[0 * 8 + 5]));
        CHECK(bit_differences(d, reference(MmaInput::Fp16, a, b, nullptr, 16, 8, 16)) == 0);
    }

    TEST_CASE("a warp missing a lane at mma.sync is refused with a sentence naming the lane") {
        sim::Buffer<float> out("out", 32);
        const sim::Result r = sim::launch("mma_missing_lane_kernel", {{1, 1, 1}, {32, 1, 1}, 0}, sim::Options{},
                                          &mma_missing_lane_kernel, out.ptr());
        CHECK_FALSE(r.ok);
        CHECK(contains(r.error, "lane 7 has already returned"));
        CHECK(contains(r.error, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 needs all 32 lanes"));
        // A warp of fewer than 32 threads cannot execute it either.
        const sim::Result whole = sim::launch("mma_every_thread_kernel", {{1, 1, 1}, {32, 1, 1}, 0}, sim::Options{},
                                              &mma_every_thread_kernel, out.ptr());
        CHECK(whole.ok);
        CHECK(out.data()[31] == 1.0f);
        const sim::Result small = sim::launch("mma_every_thread_kernel", {{1, 1, 1}, {16, 1, 1}, 0}, sim::Options{},
                                              &mma_every_thread_kernel, out.ptr());
        CHECK_FALSE(small.ok);
        CHECK(contains(small.error, "lane 16 does not exist"));
        // A lane waiting at a barrier instead of the instruction.
        const sim::Result barrier = sim::launch("mma_lane_at_barrier_kernel", {{1, 1, 1}, {32, 1, 1}, 0}, sim::Options{},
                                                &mma_lane_at_barrier_kernel, out.ptr());
        CHECK_FALSE(barrier.ok);
        CHECK(contains(barrier.error, "lane 3 waits at the __syncthreads()"));
        // The simulator runs the next kernel normally afterwards.
        const sim::MmaLaneData d = sim::mma_lane_data(MmaInput::Fp16);
        CHECK(d.ok);
    }

    TEST_CASE("launch configuration and operands: one function for both paths") {
        const kern::MmaGemmShape s = kern::mma_gemm_padded(37, 19, 45);
        CHECK(s.m == 48);
        CHECK(s.n == 24);
        CHECK(s.k == 48);
        CHECK(s.tiles() == 3 * 3);
        const kern::LaunchShape l = kern::mma_gemm_launch(s);
        CHECK(l.block.x == 128);
        CHECK(l.grid.x == 3);  // 9 tiles, 4 warps per block
        const kern::LaunchShape big = kern::mma_gemm_launch(kern::mma_gemm_padded(256, 256, 256));
        CHECK(big.grid.x == 16 * 32 / 4);
        CHECK(kern::mma_gemm_problem(0, 4, 4).find("at least one") != std::string::npos);
        CHECK(kern::mma_gemm_problem(int64_t{1} << 15, 4, 4).find("sides up to") != std::string::npos);
        CHECK(kern::mma_gemm_problem(16, 8, 16).empty());
        // Packing: A[0][1] = 1.0 lands in the high half of pair 0 of row 0 (FP16 1.0 = 0x3C00);
        // B[1][0] = 2.0 in the high half of pair 0 of Bt's row 0 (0x4000).
        std::vector<float> a(2 * 3, 0.0f), b(3 * 2, 0.0f);
        a[1] = 1.0f;
        b[1 * 2 + 0] = 2.0f;
        const kern::MmaOperands o = kern::pack_mma_operands(MmaInput::Fp16, a.data(), b.data(), nullptr, 2, 2, 3);
        CHECK(o.a[0] == 0x3C000000u);
        CHECK(o.bt[0] == 0x40000000u);
        CHECK(o.a.size() == 16u * 8u);
    }

    TEST_CASE("the simulated 256 x 256 x 256 GEMM runs and names its time as the simulator's") {
        const auto a = random_matrix(256 * 256, 21), b = random_matrix(256 * 256, 22);
        std::vector<float> d(256 * 256);
        const sim::Result r = sim::run_mma_gemm(MmaInput::Bf16, a.data(), b.data(), nullptr, d.data(), 256, 256, 256);
        REQUIRE(r.ok);
        CHECK(r.stats.wall_ns > 0);
        CHECK(bit_differences(d, reference(MmaInput::Bf16, a, b, nullptr, 256, 256, 256)) == 0);
        MESSAGE("simulated 256x256x256 mma.sync GEMM: " << r.stats.wall_ns / 1e6 << " ms of simulation (not a GPU time)");
    }
}

TEST_SUITE("tensor") {
    // The kernel's two speed rows beside cuBLAS's: named as ours, FP16 then BF16; on a GPU (cc 8.0+)
    // timed and checked, elsewhere one reason for both, starting "no GPU here" where the device is missing.
    TEST_CASE("the mma.sync speed rows - timed and checked on a GPU - one reason without one") {
        core::MeasureConfig config;
        config.warmup = 1;
        config.min_samples = config.max_samples = 2;
        config.time_budget_ns = 0;
        const std::vector<core::GemmSpeedRow> rows = gpu::measure_mma_gemm_rows(64, 48, 80, config);
        REQUIRE(rows.size() == 2);
        CHECK(rows[0].inputs == core::FpFormat::Fp16);
        CHECK(rows[1].inputs == core::FpFormat::Bf16);
        for (const core::GemmSpeedRow& r : rows) {
            CAPTURE(r.path);
            CHECK(r.backend == "cuda-kernel");
            CHECK(r.instruction == "mma.sync");
            CHECK(r.error.empty());
            if (r.ran) {
                CHECK(r.check_pass);
                CHECK(r.gflops > 0);
                CHECK(contains(r.path, "mma.sync.m16n8k16"));
            } else {
                CHECK(r.path == rows[0].path);
                if (!gpu::probe().device_ok) CHECK(r.path.rfind("no GPU here: ", 0) == 0);
            }
        }
        if (gpu::probe().device_ok && gpu::probe().cc_major >= 8) CHECK(rows[0].ran);
    }
}

TEST_SUITE("gpu") {
    // On a GPU the tensor core's internal order and rounding are its own: the result must lie within
    // the FP32 summation bound of the same rounded inputs (core::matmul_error_bound with exact
    // inputs: gamma_K * sum |a_k b_k|), and it must not be the cpu-scalar FP32 result of unrounded inputs.
    TEST_CASE("the tensor-core kernel on the GPU agrees with cpu-scalar within the FP32 summation bound") {
        const gpu::GpuProbe& p = gpu::probe();
        if (!p.device_ok) {
            MESSAGE("SKIPPED: no CUDA device (" << p.reason << ")");
            return;
        }
        const int64_t m = 128, n = 96, k = 320;
        const auto a = random_matrix(m * k, 31), b = random_matrix(k * n, 32);
        for (MmaInput in : {MmaInput::Fp16, MmaInput::Bf16}) {
            std::vector<float> d(static_cast<std::size_t>(m * n));
          for (const kern::MmaKernel kernel : {kern::MmaKernel::Warp, kern::MmaKernel::Tiled}) {
            CAPTURE(kern::mma_kernel_label(kernel));
            const gpu::MmaGemmRun r = gpu::run_mma_gemm(in, a.data(), b.data(), d.data(), m, n, k, kernel);
            if (!r.ok && contains(r.error, "compute capability")) {
                MESSAGE("SKIPPED: " << r.error);
                return;
            }
            REQUIRE_MESSAGE(r.ok, r.error);
            const std::vector<float> ref = reference(in, a, b, nullptr, m, n, k);
            const core::FpFormat f = format_of(in);
            for (int64_t i = 0; i < m; ++i) {
                for (int64_t j = 0; j < n; ++j) {
                    double sum_abs = 0;
                    for (int64_t kk = 0; kk < k; ++kk)
                        sum_abs += std::fabs(static_cast<double>(core::round_to(f, a[static_cast<std::size_t>(i * k + kk)])) *
                                             core::round_to(f, b[static_cast<std::size_t>(kk * n + j)]));
                    const double bound = 2.0 * core::matmul_error_bound({core::FpFormat::Fp32, core::FpFormat::Fp32}, k, sum_abs, 0.0);
                    CHECK(std::fabs(static_cast<double>(d[static_cast<std::size_t>(i * n + j)]) - ref[static_cast<std::size_t>(i * n + j)]) <= bound);
                }
            }
          }
        }
    }
}
