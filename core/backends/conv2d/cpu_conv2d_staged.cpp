// cpu-parallel's staged convolution (cpu_conv2d.h, Conv2dStaged): the output-channel kernel of
// cpu_conv2d_channels.cpp reading a zero-bordered copy of the input and writing channel blocks.
//
// Why a second driver beside run_rows (cpu_conv2d_simd.cpp): run_rows works in N,C,H,W on both
// sides, so inside its clock it copies every input row into a padded scratch ring and transposes
// every block's results back to N,K,P,Q. oneDNN, which the lesson measures against, times its
// convolution in its own blocked layouts with the reorders outside the clock. Here the same
// kernel gets the same arrangement: the border is added once before the clock, the blocks are
// stored as vectors, and the transpose back happens after it. The training engine, which times
// whole steps, keeps run_rows.
// Verified by tests/test_conv2d.cpp (cpu-parallel's run_conv2d against cpu-scalar, every usable ISA).
#include <algorithm>
#include <iterator>

#include "cpu_conv2d.h"
#include "cpu_conv2d_row.h"
#include "runtime/thread_pool.h"

namespace gpulab::cpu {

namespace {

// Zeros after each staged plane: the row copies store a row's last partial vector whole (FillFn), and
// without padding the plane's last row has no border row below it to take those lanes.
constexpr int64_t kPlaneSlack = 16;

struct StagedShape {
    int64_t N, C, H, W, K, R, P, Q, pad, Hp, Wp, plane, B;
    StagedShape(SimdIsa isa, const core::Conv2dDesc& d)
        : N(d.batch), C(d.channels), H(d.height), W(d.width), K(d.filters), R(d.kernel), P(d.out_height()),
          Q(d.out_width()), pad(d.pad()), Hp(H + 2 * pad), Wp(W + 2 * pad), plane(Hp * Wp + kPlaneSlack),
          B(conv_detail::channel_block(static_cast<int>(isa))) {}
    explicit StagedShape(const Conv2dFilters& f) : StagedShape(f.isa, f.desc) {}
};

}  // namespace

std::size_t conv2d_staged_bytes(SimdIsa isa, const core::Conv2dDesc& d) {
    const StagedShape g(isa, d);
    return static_cast<std::size_t>(g.N * g.C * g.plane + g.N * g.K * g.P * g.Q) * sizeof(float);
}

void conv2d_stage_input(const Conv2dFilters& f, const float* input, Conv2dStaged& s) {
    const StagedShape g(f);
    // Buffers are reused while the shape repeats (a measurement loop); one over twice the size needed
    // (left from a bigger layer) is given back rather than kept.
    const auto fit = [](core::FloatBuffer& b, int64_t floats) {
        const auto n = static_cast<std::size_t>(floats);
        if (b.capacity() > 2 * n) core::FloatBuffer().swap(b);
        b.resize(n);
    };
    fit(s.output, g.N * g.K * g.P * g.Q);
    const int64_t shape[] = {g.N, g.C, g.H, g.W, g.K, g.R, g.pad, static_cast<int64_t>(f.isa)};
    if (!std::equal(std::begin(shape), std::end(shape), std::begin(s.shape))) {
        // New shape: the border is zeroed once here; the copies below write only zeros outside the rows.
        fit(s.input, g.N * g.C * g.plane);
        std::fill(s.input.begin(), s.input.end(), 0.0f);
        std::copy(std::begin(shape), std::end(shape), std::begin(s.shape));
        // The kernel reads output column q's window at padded columns q..q+R-1 (stride 1), the last at
        // Q - 1 + R - 1 = Wp - 1: the rows need no slack past the border.
        s.taps.resize(static_cast<std::size_t>(g.C * g.R * g.R));
        for (int64_t r = 0; r < g.R; ++r)
            for (int64_t c = 0; c < g.C; ++c)
                for (int64_t x = 0; x < g.R; ++x)
                    s.taps[static_cast<std::size_t>((r * g.C + c) * g.R + x)] = c * g.plane + r * g.Wp + x;
    }
    // One plane's H rows per call, in order: the zeros a row's last vector spills past W land on the
    // border or on the next row before that row is copied.
    const conv_detail::FillFn fill = conv_detail::fill_function(static_cast<int>(f.isa));
    float* staged = s.input.data();
    ThreadPool::shared().parallel_for(
        g.N * g.C,
        [&](int64_t begin, int64_t end) {
            for (int64_t plane = begin; plane < end; ++plane) {
                fill(input + plane * g.H * g.W, g.W, staged + plane * g.plane + g.pad * g.Wp + g.pad, g.Wp, g.H, g.W);
            }
        },
        16);
}

void conv2d_parallel_staged(const Conv2dFilters& f, Conv2dStaged& s) {
    const StagedShape g(f);
    const conv_detail::RowFn row_fn = conv_detail::channel_row_function(static_cast<int>(f.isa), g.R);
    const int64_t rows_total = g.N * g.P;
    // Few rows (one picture): one contiguous run per thread, so each core reads only its share of the
    // input (one-row chunks were 20 % slower at batch 1, 28x28); many: eight chunks per thread.
    const int64_t chunk = std::max<int64_t>(1, conv_detail::rows_per_chunk(rows_total, ThreadPool::shared().size()));
    const bool skip_left = g.R == 3 && g.pad == 1;
    const bool skip_right = g.R == 3 && (g.Q - 1) - g.pad + 2 == g.W;
    const float* staged = s.input.data();
    float* out = s.output.data();
    ThreadPool::shared().parallel_for(
        rows_total,
        [&](int64_t begin, int64_t end) {
            for (int64_t idx = begin; idx < end; ++idx) {
                const int64_t n = idx / g.P, p = idx % g.P;
                const int64_t y0 = p - g.pad;  // input row under filter row 0
                const int64_t r_lo = std::clamp<int64_t>(-y0, 0, g.R), r_hi = std::clamp<int64_t>(g.H - y0, r_lo, g.R);
                conv_detail::RowJob job{nullptr, g.C * g.R, g.R, f.data(), g.C * g.R * g.R, g.K,
                                        out + (n * g.K * g.P + p * g.B) * g.Q, g.P * g.Q * g.B, g.Q, 1,
                                        staged + n * g.C * g.plane + p * g.Wp, s.taps.data(), r_lo * g.C * g.R,
                                        r_hi * g.C * g.R, skip_left, skip_right, g.plane, true};
                row_fn(job);
            }
        },
        chunk);
}

void conv2d_unstage_output(const Conv2dFilters& f, const Conv2dStaged& s, float* output) {
    const StagedShape g(f);
    const int64_t PQ = g.P * g.Q;
    const float* staged = s.output.data();
    const conv_detail::UnblockFn unblock = conv_detail::unblock_function(static_cast<int>(f.isa));
    // Block (n, kb) is PQ rows of B channels; each channel becomes one output plane.
    ThreadPool::shared().parallel_for(
        g.N * (g.K / g.B),
        [&](int64_t begin, int64_t end) {
            for (int64_t nb = begin; nb < end; ++nb) {
                const float* src = staged + nb * PQ * g.B;
                float* dst = output + nb * g.B * PQ;
                unblock(src, PQ, g.B, dst);
            }
        },
        1);
}

}  // namespace gpulab::cpu
