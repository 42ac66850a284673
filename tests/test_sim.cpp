// The SIMT simulator (kernels/sim/) on its own: each check caught on a deliberately broken kernel,
// launches a GPU would refuse, the barrier, per-block shared memory, bank-conflict counts from the
// real tiled convolution kernel, and the launch configurations the CUDA launchers share.
//
// "sim" suite: runs on every machine (the simulator is plain C++), CPU-only builds included.
// The broken kernels below are written as a student would get them wrong; each test names the
// sentence the simulator must answer with.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "activation/activation_launch.h"
#include "conv2d/conv2d_launch.h"
#include "runtime/cancel.h"
#include "sim/cuda_sim_backend.h"
#include "sim/sim_bench.h"
#include "sim/sim_kernels.h"
#include "sim/sim_trace_runs.h"
#include "ops/tensor.h"
#include "workloads/activation_workload.h"
#include "workloads/latency_sweep.h"

// Last: the device environment defines CUDA's keywords as macros for the kernels below.
#include "sim/sim_device_env.h"
#include "train/conv_train_kernels.cuh"
#include "train/matmul_kernel.cuh"
#include "train/pool_relu_kernels.cuh"
#include "train/train_launch.h"

using namespace gpulab;
using kern::GlobalPtr;
using kern::SharedPtr;
using kern::as_float4;
using kern::dynamic_shared;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

sim::LaunchConfig config(unsigned grid, unsigned block, std::size_t shared = 0) {
    return {{grid, 1, 1}, {block, 1, 1}, shared};
}

// [SECTION] broken (and fixed) kernels

// No `if (i < n)`: the last block reads and writes past the end.
__global__ void scale_unguarded_kernel(GlobalPtr<const float> in, GlobalPtr<float> out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = 2.0f * in[i];
}

// Each thread reads its right neighbour's shared word; `with_barrier` decides whether anything
// orders the neighbour's write before the read.
__global__ void rotate_kernel(GlobalPtr<const float> in, GlobalPtr<float> out, bool with_barrier) {
    const SharedPtr<float> s = dynamic_shared<float>();
    const int t = threadIdx.x;
    s[t] = in[t];
    if (with_barrier) __syncthreads();
    out[t] = s[(t + 1) % blockDim.x];
}

// Half the block skips the barrier.
__global__ void half_barrier_kernel(GlobalPtr<float> out) {
    if (threadIdx.x < 16) {
        __syncthreads();
    }
    out[threadIdx.x] = 1.0f;
}

// Odd and even threads wait at two different barriers.
__global__ void two_barriers_kernel(GlobalPtr<float> out) {
    if (threadIdx.x % 2 == 0) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1.0f;
}

// A float4 load one float past a 16-byte boundary.
__global__ void misaligned_float4_kernel(GlobalPtr<const float> in, GlobalPtr<float> out) {
    const float4 v = as_float4(in + 1)[threadIdx.x];
    out[threadIdx.x] = v.x;
}

// One word past the block's shared memory.
__global__ void shared_overrun_kernel(GlobalPtr<float> out) {
    const SharedPtr<float> s = dynamic_shared<float>();
    s[threadIdx.x + 1] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];
}

__global__ void activemask_kernel(GlobalPtr<unsigned> out) { out[threadIdx.x] = __activemask(); }

// Thread t of a 32-thread block touches shared word t * stride_words: a `stride_words`-way bank
// conflict for power-of-two strides up to 32.
__global__ void strided_shared_kernel(GlobalPtr<float> out, int stride_words) {
    const SharedPtr<float> s = dynamic_shared<float>();
    s[threadIdx.x * stride_words] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x * stride_words];
}

// Block-wide sum through shared memory: a tree reduction, one barrier per level.
__global__ void block_sum_kernel(GlobalPtr<const float> in, GlobalPtr<float> out) {
    const SharedPtr<float> s = dynamic_shared<float>();
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) s[t] = s[t] + s[t + half];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// A warp sum with shuffles: lane 0 of each warp writes the sum of its 32 inputs; every lane also
// writes the ballot of "my input is odd" and whether all lanes' inputs are below 100.
__global__ void warp_sum_kernel(GlobalPtr<const int> in, GlobalPtr<int> sums, GlobalPtr<unsigned> ballots,
                                GlobalPtr<int> all_small) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    const unsigned odd = __ballot_sync(0xffffffffu, v % 2 != 0);
    const int small = __all_sync(0xffffffffu, v < 100);
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    const int total = __shfl_sync(0xffffffffu, v, 0);  // lane 0 holds the sum; broadcast it
    ballots[i] = odd;
    all_small[i] = small;
    if (threadIdx.x % 32 == 0) sums[i / 32] = total;
}

// Lanes exchange through shared memory: each reads its partner's word (lane ^ 16), then overwrites
// its own. `with_syncwarp` orders the reads before the writes.
__global__ void warp_swap_kernel(GlobalPtr<float> out, bool with_syncwarp) {
    const SharedPtr<float> s = dynamic_shared<float>();
    const int lane = threadIdx.x;
    s[lane] = static_cast<float>(lane);
    __syncwarp();
    const float partner = s[lane ^ 16];
    if (with_syncwarp) __syncwarp();
    s[lane] = partner;
    out[lane] = partner;
}

// Half the warp shuffles with a full mask, the other half waits at the block barrier.
__global__ void split_warp_kernel(GlobalPtr<int> out) {
    int v = threadIdx.x;
    if (threadIdx.x < 16) {
        v = __shfl_xor_sync(0xffffffffu, v, 1);
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = v;
}

// Lanes 0-15 shuffle among themselves but lane 3 reads lane 20 (poison comes back).
__global__ void shuffle_outside_mask_kernel(GlobalPtr<int> out) {
    int v = threadIdx.x;
    if (threadIdx.x < 16) v = __shfl_sync(0x0000ffffu, v, threadIdx.x == 3 ? 20 : 0, 32);
    out[threadIdx.x] = v;
}

// [SECTION] the simulator's fixes of issue 28: exited lanes, shuffle segments, poisoned memory,
// stack overflow, static shared arrays

// Lanes 20-31 return first; the rest meet at warp operations with the full mask, which CUDA
// completes with the lanes that have not exited. `read_exited`: a shuffle then reads an exited lane.
__global__ void early_exit_warp_kernel(GlobalPtr<unsigned> ballots, GlobalPtr<int> all, GlobalPtr<int> got,
                                       bool read_exited) {
    const int t = threadIdx.x;
    if (t >= 20) return;
    ballots[t] = __ballot_sync(0xffffffffu, 1);
    all[t] = __all_sync(0xffffffffu, t < 20);
    got[t] = read_exited ? __shfl_down_sync(0xffffffffu, t, 16) : __shfl_sync(0xffffffffu, t, 7);
}

// Segments of 8: XOR with 8 points lanes 0-7 at the later segment (their own value comes back) and
// lanes 8-15 at the earlier one (its lane's value).
__global__ void xor_segments_kernel(GlobalPtr<int> out) {
    const int t = threadIdx.x;
    out[t] = __shfl_xor_sync(0xffffffffu, t, 8, 8);
}

// Writes only the even elements: the odd ones keep what the allocation held.
__global__ void write_evens_kernel(GlobalPtr<float> out) {
    const int t = threadIdx.x;
    if (t % 2 == 0) out[t] = 1.0f;
}

// 64 KiB of locals on a 16 KiB stack.
__global__ void big_local_array_kernel(GlobalPtr<int> out) {
    volatile char big[64 * 1024];
    for (int i = 0; i < static_cast<int>(sizeof big); ++i) big[i] = static_cast<char>(i);
    out[threadIdx.x] = big[threadIdx.x * 7];
}

// A block sum through a static shared array; without the barrier the reads race the writes, and
// `overrun` reads one element past the array.
__global__ void static_shared_sum_kernel(GlobalPtr<const float> in, GlobalPtr<float> out, bool barrier, bool overrun) {
    GPULAB_STATIC_SHARED(float, partial, 64);
    const int t = threadIdx.x;
    partial[t] = in[blockIdx.x * 64 + t];
    if (barrier) __syncthreads();
    if (t == 0) {
        float sum = 0.0f;
        for (int i = 0; i < (overrun ? 65 : 64); ++i) sum += partial[i];
        out[blockIdx.x] = sum;
    }
}

// 40 KiB of static shared memory: alone it fits, with 10 KiB of dynamic shared memory it does not.
__global__ void big_static_shared_kernel(GlobalPtr<float> out) {
    GPULAB_STATIC_SHARED(float, big, 10 * 1024);
    big[threadIdx.x] = 1.0f;
    out[threadIdx.x] = big[threadIdx.x];
}

// The bias gradient's first version (issue 30): one thread per channel walking all N x P x Q values
// alone. Kept here only to count what the block-per-channel kernel saves.
__global__ void bias_gradient_one_thread_per_channel(GlobalPtr<const float> dy, GlobalPtr<float> db, int64_t images,
                                                     int64_t channels, int64_t plane) {
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < channels; k += stride) {
        float acc = 0.0f;
        for (int64_t n = 0; n < images; ++n) {
            const GlobalPtr<const float> g = dy + (n * channels + k) * plane;
            for (int64_t i = 0; i < plane; ++i) acc += g[i];
        }
        db[k] = acc;
    }
}

// Max pooling's backward pass before issue 30: each input element's thread recomputed its window's
// first maximum from the four inputs (64-bit indices). Kept here only to count what reading the
// forward pass's recorded winner saves.
__global__ void maxpool_backward_recomputing(GlobalPtr<const float> x, GlobalPtr<const float> dy, GlobalPtr<float> dx,
                                             int64_t planes, int64_t h, int64_t w) {
    const int64_t oh = h / 2, ow = w / 2, total = planes * h * w;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += stride) {
        const int64_t col = e % w, row = (e / w) % h, pl = e / (w * h);
        const int64_t i = row / 2, j = col / 2;
        float g = 0.0f;
        if (i < oh && j < ow) {
            const GlobalPtr<const float> plane = x + pl * h * w;
            int64_t best = (2 * i) * w + 2 * j;
            float top = plane[best];
            for (int64_t a = 0; a < 2; ++a)
                for (int64_t b = 0; b < 2; ++b) {
                    const int64_t at = (2 * i + a) * w + 2 * j + b;
                    if (plane[at] > top) {
                        top = plane[at];
                        best = at;
                    }
                }
            if (best == row * w + col) g = dy[(pl * oh + i) * ow + j];
        }
        dx[e] = g;
    }
}

// The filters' gradient's first version (issue 30): one thread per weight summing every term alone.
__global__ void weight_gradient_one_thread_per_weight(GlobalPtr<const float> x, GlobalPtr<const float> dy,
                                                      GlobalPtr<float> dw, kern::TrainConvShape s) {
    const int64_t total = s.k * s.c * s.r * s.r;
    const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
        const int64_t t = i % s.r, r = (i / s.r) % s.r, c = (i / (s.r * s.r)) % s.c, k = i / (s.r * s.r * s.c);
        float acc = 0.0f;
        for (int64_t n = 0; n < s.n; ++n) {
            const GlobalPtr<const float> grad = dy + (n * s.k + k) * s.p * s.q;
            const GlobalPtr<const float> plane = x + (n * s.c + c) * s.h * s.w + r * s.w + t;
            for (int64_t p = 0; p < s.p; ++p)
                for (int64_t q = 0; q < s.q; ++q) acc += grad[p * s.q + q] * plane[p * s.w + q];
        }
        dw[i] = acc;
    }
}

// The dense layers' tiled product before issue 30's fix: lanes always loaded along the depth of A
// and the columns of B, whatever the stride, into unpadded tiles. Kept only to count what the
// coalesced loads save.
__global__ void matmul_lanes_along_tx(GlobalPtr<const float> a, GlobalPtr<const float> b, GlobalPtr<float> c,
                                      kern::MatmulShape s) {
    constexpr int T = kern::kMatmulTile;
    const SharedPtr<float> ta = dynamic_shared<float>();
    const SharedPtr<float> tb = ta + T * T;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int64_t row = static_cast<int64_t>(blockIdx.y) * T + ty, col = static_cast<int64_t>(blockIdx.x) * T + tx;
    float acc = 0.0f;
    for (int64_t d0 = 0; d0 < s.depth; d0 += T) {
        const int64_t da = d0 + tx, db = d0 + ty;
        ta[ty * T + tx] = (row < s.rows && da < s.depth) ? static_cast<float>(a[row * s.a_row + da * s.a_col]) : 0.0f;
        tb[ty * T + tx] = (db < s.depth && col < s.cols) ? static_cast<float>(b[db * s.b_row + col * s.b_col]) : 0.0f;
        __syncthreads();
        for (int d = 0; d < T; ++d) acc += ta[ty * T + d] * tb[d * T + tx];
        __syncthreads();
    }
    if (row < s.rows && col < s.cols) c[row * s.cols + col] = acc;
}

}  // namespace

TEST_SUITE("sim") {
    TEST_CASE("the dense layer's products load their tiles coalesced - transposed operands included") {
        // The lesson model's dense64 at batch 32: x is 32 x 1600 (the last conv's output), W 64 x 1600.
        const int64_t n = 32, in = 1600, out = 64;
        sim::Buffer<float> x("x", static_cast<std::size_t>(n * in)), w("w", static_cast<std::size_t>(out * in)),
            dy("dy", static_cast<std::size_t>(n * out));
        for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>((i * 13) % 29) / 14.0f - 1.0f;
        for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = static_cast<float>((i * 7) % 31) / 15.0f - 1.0f;
        for (std::size_t i = 0; i < dy.size(); ++i) dy.data()[i] = static_cast<float>((i * 5) % 23) / 11.0f - 1.0f;
        struct Product {
            const char* name;
            const sim::Buffer<float>& a;
            const sim::Buffer<float>& b;
            kern::MatmulShape s;
        };
        // forward y = x W^T (B = W^T: b_row = 1); backward-weights dW = dy^T x (A = dy^T: a_row = 1);
        // backward-data dx = dy W (both stored as read).
        const Product products[] = {{"forward y = x W^T", x, w, {n, out, in, in, 1, 1, in}},
                                    {"weights dW = dy^T x", dy, x, {out, in, n, 1, out, in, 1}},
                                    {"data dx = dy W", dy, w, {n, in, out, out, 1, in, 1}}};
        sim::Options counted;
        counted.count_global_sectors = true;
        counted.count_bank_conflicts = true;
        for (const Product& p : products) {
            const std::string name = p.name;
            CAPTURE(name);
            const std::size_t outputs = static_cast<std::size_t>(p.s.rows * p.s.cols);
            sim::Buffer<float> now_c("now", outputs), before_c("before", outputs);
            const kern::LaunchShape l = kern::matmul_launch(p.s.rows, p.s.cols);
            const sim::LaunchConfig cfg{{l.grid.x, l.grid.y, 1}, {l.block.x, l.block.y, 1}, l.shared_bytes};
            const sim::Result now = sim::launch("matmul_tiled_kernel", cfg, counted, &kern::matmul_tiled_kernel,
                                                p.a.cptr(), p.b.cptr(), GlobalPtr<const float>(), now_c.ptr(), p.s, 0);
            REQUIRE_MESSAGE(now.ok, now.error);
            const sim::LaunchConfig old_cfg{{l.grid.x, l.grid.y, 1}, {l.block.x, l.block.y, 1},
                                            2 * kern::kMatmulTile * kern::kMatmulTile * sizeof(float)};
            const sim::Result before = sim::launch("matmul_lanes_along_tx", old_cfg, counted, &matmul_lanes_along_tx,
                                                   p.a.cptr(), p.b.cptr(), before_c.ptr(), p.s);
            REQUIRE_MESSAGE(before.ok, before.error);
            // The same products in the same order: bit for bit.
            std::size_t differing = 0;
            for (std::size_t i = 0; i < outputs; ++i) differing += now_c.data()[i] != before_c.data()[i];
            CHECK(differing == 0);
            MESSAGE(name << ": lanes along tx " << before.stats.global_sectors << " sectors (efficiency "
                           << before.stats.global_efficiency() << ", bank factor " << before.stats.bank_conflict_factor()
                           << "); along the contiguous dimension " << now.stats.global_sectors << " sectors (efficiency "
                           << now.stats.global_efficiency() << ", bank factor " << now.stats.bank_conflict_factor() << ")");
            CHECK(now.stats.global_sectors <= before.stats.global_sectors);
            CHECK(now.stats.global_efficiency() > 0.9);
            CHECK(now.stats.bank_conflict_factor() < 1.1);
        }
    }

    TEST_CASE("warp intrinsics: ballot - all - shuffles - in either thread order") {
        constexpr unsigned kBlocks = 3, kThreads = 96;
        sim::Buffer<int> in("in", kBlocks * kThreads), sums("sums", kBlocks * kThreads / 32),
            all_small("all_small", kBlocks * kThreads);
        sim::Buffer<unsigned> ballots("ballots", kBlocks * kThreads);
        for (std::size_t i = 0; i < in.size(); ++i) in.data()[i] = static_cast<int>((i * 7) % 113);
        for (bool reverse : {false, true}) {
            CAPTURE(reverse);
            sim::Options o;
            o.reverse_thread_order = reverse;
            const sim::Result r = sim::launch("warp_sum_kernel", config(kBlocks, kThreads), o, &warp_sum_kernel,
                                              in.cptr(), sums.ptr(), ballots.ptr(), all_small.ptr());
            REQUIRE_MESSAGE(r.ok, r.error);
            for (std::size_t w = 0; w < sums.size(); ++w) {
                int sum = 0, small = 1;
                unsigned odd = 0;
                for (int l = 0; l < 32; ++l) {
                    const int v = in.data()[w * 32 + l];
                    sum += v;
                    small &= v < 100 ? 1 : 0;
                    odd |= (v % 2 != 0 ? 1u : 0u) << l;
                }
                CAPTURE(w);
                CHECK(sums.data()[w] == sum);
                CHECK(ballots.data()[w * 32 + 5] == odd);
                CHECK(all_small.data()[w * 32 + 31] == small);
            }
        }
    }

    TEST_CASE("__syncwarp orders shared memory between the lanes of a warp") {
        sim::Buffer<float> out("out", 32);
        const sim::LaunchConfig c = config(1, 32, 32 * sizeof(float));
        const sim::Result ok = sim::launch("warp_swap_kernel", c, {}, &warp_swap_kernel, out.ptr(), true);
        REQUIRE_MESSAGE(ok.ok, ok.error);
        CHECK(out.data()[0] == 16.0f);
        CHECK(out.data()[31] == 15.0f);
        const sim::Result racy = sim::launch("warp_swap_kernel", c, {}, &warp_swap_kernel, out.ptr(), false);
        CHECK_FALSE(racy.ok);
        MESSAGE(racy.error);
        CHECK(contains(racy.error, "shared-memory race in warp_swap_kernel"));
        // Thread 0 has already overwritten its word when thread 16 reads it as its partner's.
        CHECK(contains(racy.error, "thread (16,0,0) reads shared bytes 0-3 that thread (0,0,0) wrote"));
    }

    TEST_CASE("a warp operation some lanes of its mask never reach is an error naming them") {
        sim::Buffer<int> out("out", 32);
        const sim::Result split = sim::launch("split_warp_kernel", config(1, 32), {}, &split_warp_kernel, out.ptr());
        CHECK_FALSE(split.ok);
        MESSAGE(split.error);
        CHECK(contains(split.error, "warp operation in split_warp_kernel, block (0,0,0), warp 0: lane 0 waits at __shfl_xor_sync() with mask 0xffffffff, but lane 16 "
                                    "waits at the __syncthreads() on line"));
        const sim::Result outside = sim::launch("shuffle_outside_mask_kernel", config(1, 32), {},
                                                &shuffle_outside_mask_kernel, out.ptr());
        // Reading a lane outside the mask is undefined on a GPU but no error: code may discard the
        // value. It is poison (all ones), which shows in an answer that uses it.
        REQUIRE_MESSAGE(outside.ok, outside.error);
        CHECK(out.data()[3] == -1);
        CHECK(out.data()[5] == 0);
        const sim::Result partial = sim::launch("split_warp_kernel", config(1, 16), {}, &split_warp_kernel, out.ptr());
        CHECK_FALSE(partial.ok);
        CHECK(contains(partial.error, "lane 16 does not exist (the block has 16 threads)"));
    }

    TEST_CASE("warp operations complete with the lanes that have not exited - reading an exited lane is an error") {
        sim::Buffer<unsigned> ballots("ballots", 32);
        sim::Buffer<int> all("all", 32), got("got", 32);
        const sim::Result ok = sim::launch("early_exit_warp_kernel", config(1, 32), {}, &early_exit_warp_kernel,
                                           ballots.ptr(), all.ptr(), got.ptr(), false);
        REQUIRE_MESSAGE(ok.ok, ok.error);
        CHECK(ballots.data()[0] == 0x000fffffu);  // lanes 0-19 took part
        CHECK(all.data()[5] == 1);                 // every lane that took part said yes
        CHECK(got.data()[3] == 7);  // lane 7's value, broadcast
        const sim::Result exited = sim::launch("early_exit_warp_kernel", config(1, 32), {}, &early_exit_warp_kernel,
                                               ballots.ptr(), all.ptr(), got.ptr(), true);
        CHECK_FALSE(exited.ok);
        MESSAGE(exited.error);
        CHECK(contains(exited.error, "lane 4 reads lane 20 through __shfl_down_sync(), which has already returned"));
    }

    TEST_CASE("__shfl_xor_sync with segments: an earlier segment is read, a later one gives the caller's value") {
        sim::Buffer<int> out("out", 32);
        const sim::Result r = sim::launch("xor_segments_kernel", config(1, 32), {}, &xor_segments_kernel, out.ptr());
        REQUIRE_MESSAGE(r.ok, r.error);
        CHECK(out.data()[3] == 3);    // 3 ^ 8 = 11 is in the later segment: its own value
        CHECK(out.data()[11] == 3);   // 11 ^ 8 = 3 is in the earlier segment
        CHECK(out.data()[20] == 20);  // 20 ^ 8 = 28, later
        CHECK(out.data()[28] == 20);
    }

    TEST_CASE("device memory starts as garbage, not zeros: an output never written shows") {
        sim::Buffer<float> out("out", 32);
        sim::Buffer<int> counts("counts", 4);
        CHECK(std::isnan(out.data()[1]));
        CHECK(counts.data()[0] == -1);
        const sim::Result r = sim::launch("write_evens_kernel", config(1, 32), {}, &write_evens_kernel, out.ptr());
        REQUIRE_MESSAGE(r.ok, r.error);
        CHECK(out.data()[0] == 1.0f);
        CHECK(std::isnan(out.data()[1]));  // a reference with zeros would tell it apart at once
        out.fill(0);                       // cudaMemset
        CHECK(out.data()[1] == 0.0f);
    }

    TEST_CASE("a static shared array is per block, counted, bounds- and race-checked") {
        constexpr unsigned kBlocks = 5;
        sim::Buffer<float> in("in", kBlocks * 64), out("out", kBlocks);
        for (std::size_t i = 0; i < in.size(); ++i) in.data()[i] = static_cast<float>(i % 64);
        const sim::Result ok = sim::launch("static_shared_sum_kernel", config(kBlocks, 64), {},
                                           &static_shared_sum_kernel, in.cptr(), out.ptr(), true, false);
        REQUIRE_MESSAGE(ok.ok, ok.error);
        for (unsigned b = 0; b < kBlocks; ++b) CHECK(out.data()[b] == 2016.0f);  // 0 + 1 + ... + 63
        const sim::Result racy = sim::launch("static_shared_sum_kernel", config(kBlocks, 64), {},
                                             &static_shared_sum_kernel, in.cptr(), out.ptr(), false, false);
        CHECK_FALSE(racy.ok);
        CHECK(contains(racy.error, "shared-memory race in static_shared_sum_kernel"));
        const sim::Result over = sim::launch("static_shared_sum_kernel", config(kBlocks, 64), {},
                                             &static_shared_sum_kernel, in.cptr(), out.ptr(), true, true);
        CHECK_FALSE(over.ok);
        MESSAGE(over.error);
        CHECK(contains(over.error, "out-of-bounds shared read in static_shared_sum_kernel"));
        CHECK(contains(over.error, "at byte offset 256 of the block's 256 bytes of shared memory"));

        sim::Buffer<float> small("small", 32);
        const sim::Result fits =
            sim::launch("big_static_shared_kernel", config(2, 32), {}, &big_static_shared_kernel, small.ptr());
        CHECK_MESSAGE(fits.ok, fits.error);
        const sim::Result too_much = sim::launch("big_static_shared_kernel", config(2, 32, 10 * 1024), {},
                                                 &big_static_shared_kernel, small.ptr());
        CHECK_FALSE(too_much.ok);
        MESSAGE(too_much.error);
        CHECK(contains(too_much.error, "static shared array 'big' (40960 bytes) in big_static_shared_kernel: with the "
                                       "10240 bytes of dynamic shared memory"));
        CHECK(contains(too_much.error, "at most 49152 (48 KiB)"));
    }

#if !defined(__SANITIZE_ADDRESS__)
    TEST_CASE("a kernel that overflows its stack stops the program with a sentence, not silent corruption") {
        // In a child process, as a student's kernel runs: the guard page below the fiber's stack
        // faults, the handler names the kernel and thread, and the child ends by SIGSEGV.
        int err[2];
        REQUIRE(pipe(err) == 0);
        const pid_t child = fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            dup2(err[1], STDERR_FILENO);
            close(err[0]);
            sim::Buffer<int> out("out", 32);
            sim::Options serial;
            serial.parallel = false;  // the child has no pool threads
            const sim::Result r = sim::launch("big_local_array_kernel", config(1, 32), serial, &big_local_array_kernel,
                                              out.ptr());
            _exit(r.ok ? 0 : 1);
        }
        close(err[1]);
        std::string text;
        char buf[512];
        for (ssize_t n; (n = read(err[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
        close(err[0]);
        int status = 0;
        REQUIRE(waitpid(child, &status, 0) == child);
        MESSAGE(text);
        CHECK(WIFSIGNALED(status));
        if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGSEGV);
        CHECK(contains(text, "the simulated kernel big_local_array_kernel: thread (0,0,0) of block (0,0,0) needed more "
                             "than its stack"));
    }
#endif

    TEST_CASE("the bias gradient reads coalesced: a block per channel, not a thread walking the channel alone") {
        // conv1 of the lesson's model at batch 8: 32 channels of 26 x 26.
        const int64_t n = 8, k = 32, plane = 26 * 26;
        sim::Buffer<float> dy("dy", static_cast<std::size_t>(n * k * plane)), db("db", k), old_db("old_db", k);
        for (std::size_t i = 0; i < dy.size(); ++i) dy.data()[i] = static_cast<float>((i * 37) % 101) / 50.0f - 1.0f;
        sim::Options counted;
        counted.count_global_sectors = true;
        const kern::LaunchShape l = kern::reduction_launch(k, n * plane);
        const sim::Result now = sim::launch("bias_gradient_kernel", {{l.grid.x, 1, 1}, {l.block.x, 1, 1}, l.shared_bytes},
                                            counted, &kern::bias_gradient_kernel<uint32_t>, dy.cptr(), db.ptr(), n, k, plane);
        REQUIRE_MESSAGE(now.ok, now.error);
        const kern::LaunchShape e = kern::elementwise_launch(k);
        const sim::Result before = sim::launch("bias_gradient_one_thread_per_channel", {{e.grid.x, 1, 1}, {e.block.x, 1, 1}, 0},
                                               counted, &bias_gradient_one_thread_per_channel, dy.cptr(), old_db.ptr(),
                                               n, k, plane);
        REQUIRE_MESSAGE(before.ok, before.error);
        for (int64_t c = 0; c < k; ++c) {
            double sum = 0.0;
            for (int64_t img = 0; img < n; ++img)
                for (int64_t i = 0; i < plane; ++i) sum += dy.data()[(img * k + c) * plane + i];
            CHECK(db.data()[c] == doctest::Approx(sum).epsilon(1e-4).scale(1.0));
            CHECK(old_db.data()[c] == doctest::Approx(sum).epsilon(1e-4).scale(1.0));
        }
        MESSAGE("bias gradient, 8 x 32 x 26 x 26: one thread per channel " << before.stats.global_sectors
                << " sectors for " << before.stats.global_requests << " warp loads (efficiency "
                << before.stats.global_efficiency() << "); a block per channel " << now.stats.global_sectors
                << " sectors for " << now.stats.global_requests << " (efficiency " << now.stats.global_efficiency()
                << ")");
        CHECK(before.stats.global_efficiency() < 0.2);  // a sector per lane: 4 of every 32 bytes used
        CHECK(now.stats.global_efficiency() > 0.8);  // under 1 only where a warp spans two images
        CHECK(now.stats.global_sectors * 4 < before.stats.global_sectors);
    }

    TEST_CASE("the filters' gradient spreads each weight's terms over a block instead of one thread") {
        // conv1 of the lesson's model at batch 8: 1 channel of 28 x 28, 32 filters of 3 x 3.
        const kern::TrainConvShape s = kern::train_conv_shape(8, 1, 28, 28, 32, 3);
        const int64_t weights = s.k * s.c * s.r * s.r;
        sim::Buffer<float> x("x", static_cast<std::size_t>(s.n * s.c * s.h * s.w)),
            dy("dy", static_cast<std::size_t>(s.n * s.k * s.p * s.q)), dw("dw", weights), old_dw("old_dw", weights);
        for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>((i * 13) % 29) / 14.0f - 1.0f;
        for (std::size_t i = 0; i < dy.size(); ++i) dy.data()[i] = static_cast<float>((i * 7) % 31) / 15.0f - 1.0f;
        sim::Options counted;
        counted.count_global_sectors = true;
        const kern::LaunchShape l = kern::reduction_launch(weights, s.n * s.p * s.q);
        const sim::Result now = sim::launch("conv_backward_weights_kernel", {{l.grid.x, 1, 1}, {l.block.x, 1, 1}, l.shared_bytes},
                                            counted, &kern::conv_backward_weights_kernel<uint32_t>, x.cptr(), dy.cptr(), dw.ptr(), s);
        REQUIRE_MESSAGE(now.ok, now.error);
        const kern::LaunchShape e = kern::elementwise_launch(weights);
        const sim::Result before = sim::launch("weight_gradient_one_thread_per_weight", {{e.grid.x, 1, 1}, {e.block.x, 1, 1}, 0},
                                               counted, &weight_gradient_one_thread_per_weight, x.cptr(), dy.cptr(),
                                               old_dw.ptr(), s);
        REQUIRE_MESSAGE(before.ok, before.error);
        for (int64_t i = 0; i < weights; ++i) {
            const int64_t t = i % s.r, r = (i / s.r) % s.r, k = i / (s.r * s.r);
            double sum = 0.0;
            for (int64_t n = 0; n < s.n; ++n)
                for (int64_t p = 0; p < s.p; ++p)
                    for (int64_t q = 0; q < s.q; ++q)
                        sum += static_cast<double>(dy.data()[((n * s.k + k) * s.p + p) * s.q + q]) *
                               x.data()[(n * s.h + p + r) * s.w + q + t];
            CHECK(dw.data()[i] == doctest::Approx(sum).epsilon(1e-4).scale(1.0));
            CHECK(old_dw.data()[i] == doctest::Approx(sum).epsilon(1e-4).scale(1.0));
        }
        // The work each CUDA thread does in a row: what a GPU with thousands of cores waits for.
        const double loads_before = static_cast<double>(before.stats.global_bytes) / 4.0 / static_cast<double>(weights);
        const double loads_now = static_cast<double>(now.stats.global_bytes) / 4.0 / static_cast<double>(now.stats.threads);
        MESSAGE("filters' gradient, 8 x 1 x 28 x 28 -> 32 x 3 x 3: one thread per weight, " << weights << " threads of "
                << loads_before << " loads each, " << before.stats.global_sectors << " sectors; a block per weight, "
                << now.stats.threads << " threads of about " << loads_now << " loads each, " << now.stats.global_sectors
                << " sectors");
        CHECK(loads_before > 25.0 * loads_now);  // 32 threads per weight at this batch; 256 from batch 64
        // The gain is parallel work, not fewer sectors: the old lanes (neighbouring taps of one
        // filter) read neighbouring bytes too, and a row of 26 outputs in a 28-wide plane splits a
        // warp's loads at the row's end (18 % more sectors here).
        CHECK(now.stats.global_sectors < before.stats.global_sectors * 3 / 2);
    }

    TEST_CASE("max pooling's backward reads the forward's recorded winner instead of recomputing each window") {
        // pool1 of the lesson's model at batch 8: 8 x 32 planes of 26 x 26; and an odd 11 x 11 (pool2).
        for (const int64_t side : {int64_t{26}, int64_t{11}}) {
            CAPTURE(side);
            const int64_t planes = 8 * 32, h = side, w = side, pooled = planes * (h / 2) * (w / 2);
            const auto out = static_cast<std::size_t>(pooled);
            sim::Buffer<float> x("x", static_cast<std::size_t>(planes * h * w)), y("y", out), dy("dy", out), dx("dx", static_cast<std::size_t>(planes * h * w)),
                old_dx("old_dx", static_cast<std::size_t>(planes * h * w));
            sim::Buffer<uint8_t> winners("winners", out);
            // Values from {0, 1, 2}: many windows tie, as after a ReLU.
            for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>((i * 7) % 3);
            for (std::size_t i = 0; i < dy.size(); ++i) dy.data()[i] = static_cast<float>((i * 5) % 23) / 11.0f - 1.0f;
            sim::Options counted;
            counted.count_global_sectors = true;
            const kern::LaunchShape f = kern::elementwise_launch(pooled);
            const sim::Result fwd = sim::launch("maxpool_forward_kernel", {{f.grid.x, 1, 1}, {f.block.x, 1, 1}, 0}, counted,
                                                &kern::maxpool_forward_kernel<uint32_t>, x.cptr(), y.ptr(), winners.ptr(),
                                                planes, h, w);
            REQUIRE_MESSAGE(fwd.ok, fwd.error);
            const kern::LaunchShape l = kern::elementwise_launch(planes * h * w);
            const sim::LaunchConfig cfg{{l.grid.x, 1, 1}, {l.block.x, 1, 1}, 0};
            const sim::Result now = sim::launch("maxpool_backward_kernel", cfg, counted,
                                                &kern::maxpool_backward_kernel<uint32_t>, winners.cptr(), dy.cptr(),
                                                dx.ptr(), planes, h, w);
            REQUIRE_MESSAGE(now.ok, now.error);
            const sim::Result before = sim::launch("maxpool_backward_recomputing", cfg, counted,
                                                   &maxpool_backward_recomputing, x.cptr(), dy.cptr(), old_dx.ptr(),
                                                   planes, h, w);
            REQUIRE_MESSAGE(before.ok, before.error);
            // The same routing, ties included: bit for bit.
            std::size_t differing = 0;
            for (std::size_t i = 0; i < dx.size(); ++i) differing += dx.data()[i] != old_dx.data()[i];
            CHECK(differing == 0);
            MESSAGE("max-pool backward, " << planes << " planes of " << h << " x " << w << ": recomputing each window "
                    << before.stats.global_sectors << " sectors for " << before.stats.global_requests
                    << " warp requests; reading the recorded winner " << now.stats.global_sectors << " for "
                    << now.stats.global_requests << "; the forward pass " << fwd.stats.global_sectors
                    << " sectors with its winners written");
            CHECK(now.stats.global_sectors * 2 < before.stats.global_sectors);
        }
    }

    TEST_CASE("32-bit and 64-bit index paths touch the same memory") {
        // The index type changes the arithmetic a GPU runs, not the addresses: the simulator's sector
        // counts are equal, and so are the results (conv2 of the lesson's model at batch 4).
        const kern::TrainConvShape s = kern::train_conv_shape(4, 32, 13, 13, 64, 3);
        sim::Buffer<float> x("x", static_cast<std::size_t>(s.n * s.c * s.h * s.w)), w("w", static_cast<std::size_t>(s.k * s.c * 9)),
            b("b", static_cast<std::size_t>(s.k)), y32("y32", static_cast<std::size_t>(s.n * s.k * s.p * s.q)),
            y64("y64", static_cast<std::size_t>(s.n * s.k * s.p * s.q));
        for (std::size_t i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>((i * 13) % 29) / 14.0f - 1.0f;
        for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = static_cast<float>((i * 7) % 31) / 15.0f - 1.0f;
        for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<float>(i % 5) / 4.0f;
        sim::Options counted;
        counted.count_global_sectors = true;
        const kern::LaunchShape l = kern::elementwise_launch(s.n * s.k * s.p * s.q);
        const sim::LaunchConfig cfg{{l.grid.x, 1, 1}, {l.block.x, 1, 1}, 0};
        const sim::Result narrow = sim::launch("conv_forward_kernel", cfg, counted, &kern::conv_forward_kernel<uint32_t>,
                                               x.cptr(), w.cptr(), b.cptr(), y32.ptr(), s);
        const sim::Result wide = sim::launch("conv_forward_kernel", cfg, counted, &kern::conv_forward_kernel<int64_t>,
                                             x.cptr(), w.cptr(), b.cptr(), y64.ptr(), s);
        REQUIRE_MESSAGE(narrow.ok, narrow.error);
        REQUIRE_MESSAGE(wide.ok, wide.error);
        CHECK(narrow.stats.global_sectors == wide.stats.global_sectors);
        std::size_t differing = 0;
        for (std::size_t i = 0; i < y32.size(); ++i) differing += y32.data()[i] != y64.data()[i];
        CHECK(differing == 0);
        MESSAGE("conv forward 4 x 32 x 13 x 13 -> 64: " << narrow.stats.global_sectors << " sectors with 32-bit indices, "
                << wide.stats.global_sectors << " with 64-bit");
    }

    TEST_CASE("the kernels take 32-bit indices exactly while the last grid-stride step fits") {
        const int64_t limit = int64_t{0x7fffffff} - kern::kMaxGridStride;
        CHECK(kern::narrow_index(0));
        CHECK(kern::narrow_index(limit));
        CHECK_FALSE(kern::narrow_index(limit + 1));
        CHECK_FALSE(kern::narrow_index(int64_t{1} << 32));
        CHECK_FALSE(kern::narrow_index(10, kern::IndexMath::Wide));  // forced: the tests' way onto the wide path
        // The lesson's model at batch 64 is far inside: its largest tensor is conv1's output.
        CHECK(kern::narrow_index(kern::conv_largest_tensor(kern::train_conv_shape(64, 1, 28, 28, 32, 3))));
    }

    TEST_CASE("a correct kernel with barriers: shared memory per block - a real barrier") {
        constexpr unsigned kBlocks = 37, kThreads = 128;
        sim::Buffer<float> in("in", kBlocks * kThreads);
        sim::Buffer<float> out("out", kBlocks);
        for (std::size_t i = 0; i < in.size(); ++i) in.data()[i] = static_cast<float>(i % 7);
        for (bool reverse : {false, true}) {
            CAPTURE(reverse);
            sim::Options o;
            o.reverse_thread_order = reverse;
            const sim::Result r = sim::launch("block_sum_kernel", config(kBlocks, kThreads, kThreads * sizeof(float)), o,
                                              &block_sum_kernel, in.cptr(), out.ptr());
            REQUIRE_MESSAGE(r.ok, r.error);
            for (unsigned b = 0; b < kBlocks; ++b) {
                float expect = 0.0f;
                for (unsigned t = 0; t < kThreads; ++t) expect += static_cast<float>((b * kThreads + t) % 7);
                CHECK(out.data()[b] == doctest::Approx(expect));
            }
            CHECK(r.stats.blocks == kBlocks);
            CHECK(r.stats.threads == kBlocks * kThreads);
            CHECK(r.stats.block_barriers == kBlocks * 8);  // one before the loop, one per level (7)
            CHECK(r.stats.thread_barrier_crossings == r.stats.block_barriers * kThreads);
        }
    }

    TEST_CASE("out-of-bounds global read is caught with kernel - thread - block and buffer") {
        sim::Buffer<float> in("in", 1000);
        sim::Buffer<float> out("out", 1000);
        const sim::Result r =
            sim::launch("scale_unguarded_kernel", config(4, 256), {}, &scale_unguarded_kernel, in.cptr(), out.ptr());
        CHECK_FALSE(r.ok);
        MESSAGE(r.error);
        CHECK(contains(r.error, "out-of-bounds global read in scale_unguarded_kernel"));
        CHECK(contains(r.error, "thread (232,0,0) of block (3,0,0)"));  // 3 * 256 + 232 = 1000
        CHECK(contains(r.error, "byte offset 4000 of buffer 'in' (4000 bytes)"));
    }

    TEST_CASE("a shared-memory race names both threads and the address - in either thread order") {
        constexpr unsigned kThreads = 64;
        sim::Buffer<float> in("in", kThreads);
        sim::Buffer<float> out("out", kThreads);
        for (unsigned i = 0; i < kThreads; ++i) in.data()[i] = static_cast<float>(i);
        const sim::LaunchConfig c = config(1, kThreads, kThreads * sizeof(float));

        sim::Options forward, reverse;
        reverse.reverse_thread_order = true;
        const sim::Result f = sim::launch("rotate_kernel", c, forward, &rotate_kernel, in.cptr(), out.ptr(), false);
        CHECK_FALSE(f.ok);
        MESSAGE(f.error);
        CHECK(contains(f.error, "shared-memory race in rotate_kernel, block (0,0,0)"));
        CHECK(contains(f.error, "thread (1,0,0) writes shared bytes 4-7 that thread (0,0,0) read"));
        const sim::Result b = sim::launch("rotate_kernel", c, reverse, &rotate_kernel, in.cptr(), out.ptr(), false);
        CHECK_FALSE(b.ok);
        MESSAGE(b.error);
        CHECK(contains(b.error, "thread (62,0,0) reads shared bytes 252-255 that thread (63,0,0) wrote"));

        // The barrier orders the write before the read: no race, and both orders agree.
        std::vector<float> results[2];
        for (int order = 0; order < 2; ++order) {
            const sim::Result ok =
                sim::launch("rotate_kernel", c, order == 0 ? forward : reverse, &rotate_kernel, in.cptr(), out.ptr(), true);
            REQUIRE_MESSAGE(ok.ok, ok.error);
            results[order].assign(out.data(), out.data() + kThreads);
        }
        CHECK(results[0] == results[1]);
        CHECK(results[0][0] == 1.0f);
        CHECK(results[0][kThreads - 1] == 0.0f);
    }

    TEST_CASE("barrier divergence names the waiting and the missing threads") {
        sim::Buffer<float> out("out", 32);
        const sim::Result r = sim::launch("half_barrier_kernel", config(1, 32), {}, &half_barrier_kernel, out.ptr());
        CHECK_FALSE(r.ok);
        MESSAGE(r.error);
        CHECK(contains(r.error, "barrier divergence in half_barrier_kernel, block (0,0,0)"));
        CHECK(contains(r.error, "threads 0-15 wait at the __syncthreads()"));
        CHECK(contains(r.error, "threads 16-31 returned without reaching it"));

        const sim::Result two = sim::launch("two_barriers_kernel", config(1, 8), {}, &two_barriers_kernel, out.ptr());
        CHECK_FALSE(two.ok);
        MESSAGE(two.error);
        CHECK(contains(two.error, "threads 0, 2, 4, 6 wait at the __syncthreads() on line"));
        CHECK(contains(two.error, "threads 1, 3, 5, 7 wait at the __syncthreads() on line"));
    }

    TEST_CASE("a misaligned float4 access is an error - as on the GPU") {
        sim::Buffer<float> in("in", 256);
        sim::Buffer<float> out("out", 32);
        const sim::Result r =
            sim::launch("misaligned_float4_kernel", config(1, 32), {}, &misaligned_float4_kernel, in.cptr(), out.ptr());
        CHECK_FALSE(r.ok);
        MESSAGE(r.error);
        CHECK(contains(r.error, "misaligned global read in misaligned_float4_kernel"));
        CHECK(contains(r.error, "reads 16 bytes at byte offset 4 of buffer 'in'"));
        CHECK(contains(r.error, "not a multiple of 16"));
    }

    TEST_CASE("shared memory past the block's allocation is caught") {
        sim::Buffer<float> out("out", 32);
        const sim::Result r = sim::launch("shared_overrun_kernel", config(1, 32, 32 * sizeof(float)), {},
                                          &shared_overrun_kernel, out.ptr());
        CHECK_FALSE(r.ok);
        MESSAGE(r.error);
        CHECK(contains(r.error, "out-of-bounds shared write in shared_overrun_kernel, thread (31,0,0)"));
        CHECK(contains(r.error, "at byte offset 128 of the block's 128 bytes of shared memory"));
    }

    TEST_CASE("what cannot be modelled is refused with a sentence") {
        sim::Buffer<unsigned> out("out", 32);
        const sim::Result r = sim::launch("activemask_kernel", config(1, 32), {}, &activemask_kernel, out.ptr());
        CHECK_FALSE(r.ok);
        MESSAGE(r.error);
        CHECK(contains(r.error, "the simulator cannot run activemask_kernel: __activemask()"));
    }

    TEST_CASE("launches a GPU would refuse are refused naming the limit") {
        sim::Buffer<float> out("out", 4096);
        const auto refuse = [&](sim::LaunchConfig c) {
            return sim::launch("half_barrier_kernel", c, {}, &half_barrier_kernel, out.ptr());
        };
        const sim::Result big_block = refuse({{1, 1, 1}, {64, 32, 1}, 0});
        CHECK_FALSE(big_block.ok);
        CHECK(contains(big_block.error, "a block of 2048 threads: a GPU allows at most 1024 threads per block"));
        const sim::Result deep = refuse({{1, 1, 1}, {1, 1, 65}, 0});
        CHECK(contains(deep.error, "blockDim.z = 65: a GPU allows at most 64"));
        const sim::Result grid = refuse({{1, 70000, 1}, {32, 1, 1}, 0});
        CHECK(contains(grid.error, "gridDim.y = 70000: a GPU allows at most 65535 blocks in y"));
        const sim::Result shared = refuse({{1, 1, 1}, {32, 1, 1}, 64 * 1024});
        CHECK(contains(shared.error, "65536 bytes of dynamic shared memory per block"));
        CHECK(contains(shared.error, "48 KiB"));
        const sim::Result empty = refuse({{0, 1, 1}, {32, 1, 1}, 0});
        CHECK(contains(empty.error, "a zero grid dimension in x"));
        for (const sim::Result* r : {&big_block, &deep, &grid, &shared, &empty}) {
            CHECK_FALSE(r->ok);
            CHECK(r->stats.threads == 0);  // nothing ran
        }
    }

    TEST_CASE("after a fault or a deadlock the simulator runs the next kernel normally") {
        sim::Buffer<float> in("in", 1000);
        sim::Buffer<float> out("out", 1000);
        for (int round = 0; round < 3; ++round) {
            CHECK_FALSE(sim::launch("scale_unguarded_kernel", config(4, 256), {}, &scale_unguarded_kernel, in.cptr(),
                                    out.ptr())
                            .ok);
            CHECK_FALSE(sim::launch("half_barrier_kernel", config(8, 32), {}, &half_barrier_kernel, out.ptr()).ok);
            const sim::Result ok =
                sim::launch("scale_unguarded_kernel", config(3, 250), {}, &scale_unguarded_kernel, in.cptr(), out.ptr());
            CHECK_MESSAGE(ok.ok, ok.error);
        }
    }

    TEST_CASE("bank conflicts are counted per warp request") {
        sim::Buffer<float> out("out", 32);
        sim::Options o;
        o.count_bank_conflicts = true;
        for (int stride : {1, 2, 4, 32, 33}) {
            CAPTURE(stride);
            const sim::Result r = sim::launch("strided_shared_kernel", config(1, 32, 33 * 32 * sizeof(float)), o,
                                              &strided_shared_kernel, out.ptr(), stride);
            REQUIRE_MESSAGE(r.ok, r.error);
            const int ways = stride == 33 ? 1 : stride;  // an odd stride touches every bank once
            CHECK(r.stats.shared_requests == 2);         // one store, one load
            CHECK(r.stats.shared_wavefronts == 2 * ways);
        }
    }

    TEST_CASE("the tiled convolution's window reads are conflict-free with the padded pitch") {
        // 64 x 64, 3 x 3, stride 1: 16 blocks of 256 threads; T = 18, pitch 48.
        core::Conv2dDesc d;
        d.height = 64, d.width = 64, d.kernel = 3, d.stride = 1;
        kern::ConvShape s = kern::conv2d_shape(d);
        CHECK(s.tile == 18);
        CHECK(s.pitch == 48);
        sim::Buffer<float> in("input", 64 * 64), filters("filters", 9), out("output", 64 * 64);
        for (std::size_t i = 0; i < in.size(); ++i) in.data()[i] = 1.0f;
        for (std::size_t i = 0; i < 9; ++i) filters.data()[i] = 1.0f;
        sim::Options o;
        o.count_bank_conflicts = true;
        const sim::Result padded = sim::run_conv2d(kern::Conv2dKernel::Tiled, s, in.cptr(), filters.cptr(), out.ptr(), o);
        REQUIRE_MESSAGE(padded.ok, padded.error);
        CHECK(out.data()[65] == 9.0f);
        s.pitch = s.tile;  // the layout before issue 13 item 7
        const sim::Result unpadded =
            sim::run_conv2d(kern::Conv2dKernel::Tiled, s, in.cptr(), filters.cptr(), out.ptr(), o);
        REQUIRE_MESSAGE(unpadded.ok, unpadded.error);
        CHECK(out.data()[65] == 9.0f);
        MESSAGE("padded: " << padded.stats.shared_requests << " requests, " << padded.stats.shared_wavefronts
                           << " wavefronts; unpadded: " << unpadded.stats.shared_requests << " requests, "
                           << unpadded.stats.shared_wavefronts << " wavefronts");
        // The numbers kernels/conv2d/conv2d_kernels.cuh states. Per block: 12 store requests (the 324 tile
        // elements and 9 filter taps: 3 in warp 0, 2 in warps 1-2, 1 in the other five), then per warp
        // 9 window reads and 9 filter reads (a broadcast).
        CHECK(padded.stats.shared_requests == 16 * (12 + 8 * 18));
        CHECK(unpadded.stats.shared_requests == padded.stats.shared_requests);
        CHECK(padded.stats.shared_wavefronts == 2496 + 160);          // only some tile stores take 2 passes
        CHECK(unpadded.stats.shared_wavefronts == 2496 + 16 * 8 * 9);  // every window read takes 2
    }

    TEST_CASE("the activation kernel's float4 body is coalesced: out-of-step pointers cost sectors") {
        // 4096 floats from 256-byte-aligned buffers: 1024 float4s, 4 blocks, one load and one store
        // per thread. Each warp request is 32 x 16 = 512 contiguous bytes: 16 sectors of 32 bytes.
        sim::Buffer<float> in("in", 4096 + 4), out("out", 4096 + 4);
        core::OpDesc relu;
        relu.activation = core::Activation::Relu;
        sim::Options o;
        o.count_global_sectors = true;
        const sim::Result aligned = sim::run_activation(relu, in.cptr(), out.ptr(), 4096, o);
        REQUIRE_MESSAGE(aligned.ok, aligned.error);
        CHECK(aligned.stats.global_requests == 4 * 8 * 2);
        CHECK(aligned.stats.global_sectors == 4 * 8 * 2 * 16);
        CHECK(aligned.stats.global_efficiency() == doctest::Approx(1.0));

        // in 1 float and out 2 floats past the boundary: no head aligns both, so all 4096 go
        // through the scalar loop (16 blocks); a warp's 128 bytes start 4 or 8 bytes into a sector
        // and touch 5 sectors instead of 4.
        const sim::Result skewed = sim::run_activation(relu, in.cptr() + 1, out.ptr() + 2, 4096, o);
        REQUIRE_MESSAGE(skewed.ok, skewed.error);
        CHECK(skewed.stats.global_requests == 16 * 8 * 2);
        CHECK(skewed.stats.global_sectors == 16 * 8 * 2 * 5);
        CHECK(skewed.stats.global_efficiency() == doctest::Approx(0.8));
        MESSAGE("aligned float4: " << aligned.stats.global_sectors << " sectors for " << aligned.stats.global_requests
                                   << " warp requests; out of step: " << skewed.stats.global_sectors << " for "
                                   << skewed.stats.global_requests);
    }

    TEST_CASE("launch configurations: the simulator runs the grid the CUDA launcher computes") {
        // Activation: 256-byte-aligned buffers, 2^20 + 7 floats: no head, 262145 float4s, a tail of 3.
        const kern::ActivationSplit aligned = kern::activation_split(0x1000, 0x2000, (1 << 20) + 7);
        CHECK(aligned.head == 0);
        CHECK(aligned.n_vec == 262145);
        const kern::LaunchShape a = kern::activation_launch(aligned, sim::model_resident_blocks(256));
        CHECK(a.grid.x == 1025);  // ceil(262145 / 256)
        CHECK(a.block.x == 256);
        const kern::ActivationSplit big = kern::activation_split(0x1000, 0x2000, int64_t{1} << 26);
        CHECK(kern::activation_launch(big, sim::model_resident_blocks(256)).grid.x == 132 * 8);  // the cap
        const kern::ActivationSplit skew = kern::activation_split(0x1004, 0x2008, 100);
        CHECK(skew.head == 100);  // out of step: all scalar
        const kern::ActivationSplit step = kern::activation_split(0x1004, 0x2004, 100);
        CHECK(step.head == 3);
        CHECK(step.n_vec == 24);

        core::Conv2dDesc d;
        d.batch = 2, d.channels = 3, d.height = 33, d.width = 65, d.filters = 4, d.kernel = 5, d.stride = 2;
        const kern::ConvShape s = kern::conv2d_shape(d);
        const kern::LaunchShape tiled = kern::conv2d_launch(kern::Conv2dKernel::Tiled, s);
        CHECK(tiled.grid.x == 3);  // Q = 33
        CHECK(tiled.grid.y == 2);  // P = 17
        CHECK(tiled.grid.z == 8);
        CHECK(tiled.block.count() == 256);
        CHECK(tiled.shared_bytes == static_cast<std::size_t>(35 * 48 + 25) * 4);

        sim::Buffer<float> in("input", static_cast<std::size_t>(d.input_elements()));
        sim::Buffer<float> f("filters", static_cast<std::size_t>(d.filter_elements()));
        sim::Buffer<float> out("output", static_cast<std::size_t>(d.output_elements()));
        const sim::Result r = sim::run_conv2d(kern::Conv2dKernel::Tiled, s, in.cptr(), f.cptr(), out.ptr());
        REQUIRE_MESSAGE(r.ok, r.error);
        CHECK(r.stats.threads == tiled.threads());
        CHECK(r.stats.block_barriers == tiled.grid.count() * 2 * d.channels);
        const kern::LaunchShape naive = kern::conv2d_launch(kern::Conv2dKernel::Naive, s);
        const sim::Result rn = sim::run_conv2d(kern::Conv2dKernel::Naive, s, in.cptr(), f.cptr(), out.ptr());
        REQUIRE_MESSAGE(rn.ok, rn.error);
        CHECK(rn.stats.threads == naive.threads());
        CHECK(naive.grid.x == (d.output_elements() + 255) / 256);
    }

    TEST_CASE("cuda-sim names itself as a simulation - never as a GPU speed") {
        auto b = sim::make_cuda_sim_backend();
        CHECK(b->name() == "cuda-sim");
        CHECK(contains(std::string(b->description()), "simulated on the CPU"));
        CHECK(contains(std::string(b->description()), "not a GPU speed"));
        CHECK(b->availability().ok);
        const core::LimitResult l = b->bandwidth_limit(1 << 20);
        CHECK_FALSE(l.ok);
        CHECK(contains(l.error, "no bandwidth of its own"));
        core::Conv2dDesc d;
        d.height = 8, d.width = 8;
        CHECK(contains(b->conv2d_implementation(d), "simulated on the CPU"));
    }

    TEST_CASE("the simulator benchmark reports positive rates") {
        for (const sim::SimBenchRow& row : sim::run_sim_bench(1, false)) {
            CAPTURE(row.name);
            REQUIRE_MESSAGE(row.ok, row.error);
            CHECK(row.median_ns > 0);
            CHECK(row.threads == 262144);  // 2^20 / 4 float4s; 512 x 512 outputs
            CHECK(row.threads_per_s() > 0.0);
            if (row.name.find("tiled") != std::string::npos) {
                CHECK(row.barrier_crossings == 2 * 262144);  // two barriers per thread, one channel
                CHECK(row.crossings_per_s() > 0.0);
            }
        }
    }

    TEST_CASE("a block trace of the tiled convolution: who loads what - the barrier - windows - bank passes") {
        // 40 x 40 input, 3 x 3, stride 1, zero padding: T = 18, pitch 48; block (1, 1) is interior
        // on its top-left and clipped by the image on its bottom-right.
        core::Conv2dDesc d;
        d.height = 40, d.width = 40, d.kernel = 3;
        core::Tensor in = core::Tensor::zeros({1, 1, 40, 40});
        core::Tensor f = core::Tensor::zeros({1, 1, 3, 3});
        for (int64_t i = 0; i < in.size(); ++i) in.data[static_cast<std::size_t>(i)] = static_cast<float>(i % 13);
        for (int64_t i = 0; i < f.size(); ++i) f.data[static_cast<std::size_t>(i)] = 1.0f;
        const sim::ConvBlockTrace t = sim::trace_conv2d_block(d, in, f, 1, 1);
        REQUIRE_MESSAGE(t.ok, t.error);
        CHECK(t.shape.tile == 18);
        CHECK(t.shape.pitch == 48);
        CHECK(t.trace.block.x == 1);
        CHECK(t.trace.intervals == 3);  // load | barrier | window reads | barrier | output store
        // Interval 0: every tile cell stored once, by thread (cell index mod 256), in row-major order.
        int stores = 0;
        for (const sim::TraceEvent& e : t.trace.events) {
            if (e.space != sim::Space::Shared || !e.store || e.interval != 0) continue;
            const int64_t word = e.offset / 4;
            if (word >= 18 * 48) continue;  // the filter slice
            const int64_t cell = (word / 48) * 18 + word % 48;
            CHECK(e.thread == cell % 256);
            ++stores;
        }
        CHECK(stores == 18 * 18);
        // Interval 1: thread (ty 2, tx 5) reads exactly its 3 x 3 window, rows 2..4, cols 5..7.
        std::vector<int64_t> window;
        for (const sim::TraceEvent& e : t.trace.events)
            if (e.space == sim::Space::Shared && !e.store && e.interval == 1 && e.thread == 2 * 16 + 5 &&
                e.offset / 4 < 18 * 48)
                window.push_back(e.offset / 4);
        CHECK(window == std::vector<int64_t>{2 * 48 + 5, 2 * 48 + 6, 2 * 48 + 7, 3 * 48 + 5, 3 * 48 + 6, 3 * 48 + 7,
                                             4 * 48 + 5, 4 * 48 + 6, 4 * 48 + 7});
        // Window reads are conflict-free with the padded pitch: one pass per request, as the
        // simulator's own counter finds for the whole grid.
        const sim::RequestTotals reads = sim::totals(t.requests, sim::Space::Shared, 1);
        CHECK(reads.requests == 8 * 18);  // 8 warps x (9 window + 9 weight reads)
        CHECK(reads.passes == reads.requests);
        // The block's global loads of interior rows are coalesced runs of one row.
        const sim::RequestTotals loads = sim::totals(t.requests, sim::Space::Global, 0);
        CHECK(loads.requests > 0);
        CHECK(loads.sectors >= loads.requests);
    }

    TEST_CASE("a block trace of the activation kernel: float4 loads fill 128-byte segments - offsets add a head") {
        core::OpDesc relu;
        relu.activation = core::Activation::Relu;
        // Aligned: warp 0's first float4 load is 32 lanes x 16 bytes = bytes 0..511 of `in`:
        // 4 whole segments of 128 bytes, 16 sectors.
        const sim::ActivationTrace a = sim::trace_activation_block(relu, 2048, 0, 0);
        REQUIRE_MESSAGE(a.ok, a.error);
        CHECK(a.split.head == 0);
        const sim::WarpRequest* body = nullptr;
        for (const sim::WarpRequest& r : a.requests)
            if (r.space == sim::Space::Global && r.region == a.in_region && r.warp == 0 && !r.store) {
                body = &r;
                break;
            }
        REQUIRE(body != nullptr);
        CHECK(body->lanes.size() == 32);
        CHECK(body->offsets.front() == 0);
        CHECK(body->bytes.front() == 16);
        CHECK(body->segments == 4);
        CHECK(body->sectors == 16);
        // One float in (both pointers in step): a head of 3 scalars (threads 0..2), then float4s from
        // byte 16 of the buffer: warp 0's first body load spans 5 segments.
        const sim::ActivationTrace m = sim::trace_activation_block(relu, 2048, 1, 1);
        REQUIRE_MESSAGE(m.ok, m.error);
        CHECK(m.split.head == 3);
        std::vector<const sim::WarpRequest*> in_loads;
        for (const sim::WarpRequest& r : m.requests)
            if (r.space == sim::Space::Global && r.region == m.in_region && r.warp == 0 && !r.store)
                in_loads.push_back(&r);
        REQUIRE(in_loads.size() >= 2);
        CHECK(in_loads[0]->lanes.size() == 3);  // the head: lanes 0..2, 4 bytes each, bytes 4..15
        CHECK(in_loads[0]->offsets.front() == 4);
        CHECK(in_loads[1]->offsets.front() == 16);
        CHECK(in_loads[1]->lanes.size() == 32);
        CHECK(in_loads[1]->segments == 5);  // bytes 16..527
        CHECK(in_loads[1]->sectors == 17);
        // Bad arguments: a sentence, no trace.
        const sim::ActivationTrace bad = sim::trace_activation_block(relu, 16, 5, 0);
        CHECK_FALSE(bad.ok);
        CHECK(contains(bad.error, "offsets"));
    }

    TEST_CASE("a trace of a block outside the grid is refused with a sentence") {
        core::Conv2dDesc d;
        d.height = 16, d.width = 16, d.kernel = 3;
        const sim::ConvBlockTrace t =
            sim::trace_conv2d_block(d, core::Tensor::zeros({1, 1, 16, 16}), core::Tensor::zeros({1, 1, 3, 3}), 3, 0);
        CHECK_FALSE(t.ok);
        CHECK(contains(t.error, "outside the grid"));
    }

    TEST_CASE("cuda-sim is a simulated backend: checked - never timed as a speed") {
        auto b = sim::make_cuda_sim_backend();
        CHECK(b->kind() == core::BackendKind::Simulated);
        CHECK_FALSE(core::kind_is_timed(b->kind()));
        CHECK(core::kind_is_timed(core::BackendKind::Gpu));
        CHECK(contains(std::string(b->description()), "the CUDA kernel, simulated on the CPU"));
    }

    TEST_CASE("the divergence kernel is refused with a sentence saying why") {
        const std::string why = sim::divergence_kernel_refusal();
        CHECK(contains(why, "cannot run divergence_kernel"));
        CHECK(contains(why, "__activemask()"));
        CHECK(contains(why, "inline PTX"));
    }

    TEST_CASE("a run with cuda-sim: result checked and shown - time never a speed - left out of the sweep") {
        core::BackendList list = core::make_cpu_backends();
        list.push_back(sim::make_cuda_sim_backend());
        std::vector<core::Backend*> raw;
        for (const auto& b : list) raw.push_back(b.get());
        core::ActivationParams p;
        p.elements = 1 << 12;
        core::MeasureConfig m;
        m.min_samples = 3;
        m.time_budget_ns = 0;
        const core::ActivationRun run = core::run_activation(p, raw, m);
        REQUIRE_MESSAGE(run.ok, run.error);
        const core::BackendReport& sim_report = run.reports.back();
        REQUIRE(sim_report.backend == "cuda-sim");
        CHECK(sim_report.ran);
        CHECK(sim_report.check.pass);
        CHECK(sim_report.kind == core::BackendKind::Simulated);
        CHECK(sim_report.samples_ns.size() == 1);  // run once: no repeats for a time that is not a speed
        CHECK(sim_report.gbps == 0.0);             // no GB/s, no copy limit
        CHECK(sim_report.gbps_with_transfers == 0.0);
        CHECK_FALSE(sim_report.limit.ok);
        CHECK(sim_report.moved_bytes == 2 * 4 * (1 << 12));  // aligned: every sector asked for, in and out
        CHECK(sim_report.unique_bytes == 2 * 4 * (1 << 12));  // the data itself: in and out once
        CHECK(run.simulated_backend == "cuda-sim");
        CHECK(run.simulated_output.size() == run.input.size());

        core::SweepConfig c;
        c.min_exp = 4, c.max_exp = 6, c.time_per_point_ns = 0, c.min_samples_small = 1;
        const core::SweepResult sweep = core::run_latency_sweep(c, raw);
        REQUIRE(sweep.ok);
        for (std::size_t b = 0; b < sweep.backends.size(); ++b) {
            CHECK(sweep.backends[b] != "cuda-sim");
            CHECK(core::kind_is_timed(sweep.kinds[b]));
        }
        CHECK(sweep.backends.size() == list.size() - 1);
        CHECK(core::sweep_crossover(sweep).gpu_backend.empty());  // no GPU ran; cuda-sim never stands in
    }
}

namespace {
// Counts the CUDA threads that ran; the 41st raises the stop request, as a window leaving the step would.
std::atomic<int> g_stop_threads_ran{0};
__global__ void stop_in_block_kernel() {
    if (g_stop_threads_ran.fetch_add(1) == 40) core::set_cancel_requested(true);
}
}  // namespace

TEST_SUITE("sim") {
    TEST_CASE("a stopped measurement stops a simulated kernel between blocks (core/runtime/cancel.h)") {
        sim::Buffer<float> in("in", 1 << 16), out("out", 1 << 16);
        core::OpDesc relu;
        relu.activation = core::Activation::Relu;
        core::set_cancel_requested(true);
        const sim::Result stopped = sim::run_activation(relu, in.cptr(), out.ptr(), 1 << 16, {});
        core::set_cancel_requested(false);
        CHECK_FALSE(stopped.ok);
        CHECK(stopped.error == "cancelled");
        const sim::Result whole = sim::run_activation(relu, in.cptr(), out.ptr(), 1 << 16, {});
        CHECK_MESSAGE(whole.ok, whole.error);
    }

    TEST_CASE("cuda-sim stops before its upload when asked, and a measurement counts that as stopped, not failed") {
        auto backend = sim::make_cuda_sim_backend();
        core::Tensor in = core::Tensor::zeros({1 << 16}), out = core::Tensor::zeros({1 << 16});
        std::fill(out.data.begin(), out.data.end(), -7.0f);
        core::OpDesc relu;
        core::set_cancel_requested(true);
        const core::RunResult r = backend->run(relu, in, out);
        core::set_cancel_requested(false);
        CHECK_FALSE(r.ok);
        CHECK(r.error == "cancelled");
        CHECK(out.data[0] == -7.0f);  // nothing came back
        // A run that fails because the stop came in the middle of it, as cuda-sim's does: the
        // measurement ends as stopped (no error row for the backend, no further run).
        core::BackendReport rep;
        rep.kind = backend->kind();
        int runs = 0;
        const bool finished = core::measure_samples(rep, core::MeasureConfig{}, [&] {
            ++runs;
            core::set_cancel_requested(true);
            core::RunResult failed;
            failed.error = "cancelled";
            return failed;
        }, {}, 0.0f, 1.0f);
        core::set_cancel_requested(false);
        CHECK_FALSE(finished);
        CHECK(runs == 1);
        CHECK(rep.error.empty());
        const core::RunResult again = backend->run(relu, in, out);
        CHECK_MESSAGE(again.ok, again.error);
    }

    TEST_CASE("a stop request inside a long block ends it after the warp in hand (issue 38)") {
        // One block of 1024 threads; thread 40 (the second warp) raises the request. The block is
        // given up after that warp's turn: 64 threads ran, not 1024.
        g_stop_threads_ran = 0;
        core::set_cancel_requested(false);
        const sim::Result r = sim::launch("stop_in_block_kernel", config(1, 1024), {}, &stop_in_block_kernel);
        core::set_cancel_requested(false);
        CHECK_FALSE(r.ok);
        CHECK(r.error == "cancelled");
        CHECK(g_stop_threads_ran.load() == 64);
    }
}

namespace {
// Records the order in which blocks ran (thread 0 of each), and each thread's __syncthreads_count
// of the threads below 5.
std::vector<unsigned> g_block_order_seen;
__global__ void block_order_kernel(GlobalPtr<int> counts) {
    const int c = sim::detail::sync_threads_count(__LINE__, threadIdx.x < 5);
    counts[blockIdx.x * blockDim.x + threadIdx.x] = c;
    if (threadIdx.x == 0) g_block_order_seen.push_back(blockIdx.x);
}
}  // namespace

TEST_SUITE("sim") {
    TEST_CASE("a seeded block order: a permutation, never index order, the same for the same seed") {
        for (int64_t n : {2, 3, 4, 274}) {
            const std::vector<int64_t> a = sim::block_order(n, 12345), b = sim::block_order(n, 12345);
            CHECK(a == b);
            std::vector<int64_t> sorted = a;
            std::sort(sorted.begin(), sorted.end());
            std::vector<int64_t> identity(static_cast<std::size_t>(n));
            for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int64_t>(i);
            CHECK(sorted == identity);
            CHECK(a != identity);
            CHECK(sim::block_order(n, 0) == identity);
        }
        CHECK(sim::block_order(1, 12345) == std::vector<int64_t>{0});
        // A one-at-a-time launch runs its blocks in that order; __syncthreads_count counts the block.
        sim::Buffer<int> counts("counts", 4 * 32);
        sim::Options o;
        o.parallel = false;
        o.block_order_seed = 12345;
        g_block_order_seen.clear();
        const sim::Result r = sim::launch("block_order_kernel", config(4, 32), o, &block_order_kernel, counts.ptr());
        REQUIRE_MESSAGE(r.ok, r.error);
        const std::vector<int64_t> want = sim::block_order(4, 12345);
        REQUIRE(g_block_order_seen.size() == 4);
        for (std::size_t i = 0; i < 4; ++i) CHECK(g_block_order_seen[i] == static_cast<unsigned>(want[i]));
        for (int i = 0; i < 4 * 32; ++i) CHECK(counts.data()[i] == 5);
    }
}
