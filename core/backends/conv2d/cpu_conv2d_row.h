// Internal to cpu-parallel's convolution (cpu_conv2d_simd.cpp, cpu_conv2d_channels.cpp): one
// output row's work, handed to a per-ISA row function. Plain types only, because the row
// functions are compiled for AVX2 / AVX-512 (see simd_kernels.h for why nothing inline may be
// shared with them).
#pragma once

#include <cstdint>

namespace gpulab::cpu::conv_detail {

// One output row's work for one ISA: the scratch rows are ready, every filter is to be done.
struct RowJob {
    const float* const* rows;  // C*R pointers: padded input row for (c, r); index 0 is input column -pad
    int64_t cr_count;          // C * R
    int64_t S;                 // kernel width
    const float* filters;      // filter 0 of K,C,R,S (or the channel-blocked copy, cpu_conv2d_channels.cpp)
    int64_t filter_stride;     // C * R * S
    int64_t K;
    float* out;                // output row p of filter 0 (image n)
    int64_t out_stride;        // P * Q: next filter, same row
    int64_t Q;
    int64_t stride;
    // The channel kernels' flat tap loop reads tap t = (r * C + c) * S + s of output column q at
    // tap_base + tap_offsets[t] + q. The offsets depend only on which ring slots hold the window's
    // rows, i.e. on the output row modulo R, so run_rows builds R tables once per thread and shape
    // instead of C*R*S pointers per output row (5 % of a 64-channel 28x28 layer, measured with perf).
    const float* tap_base;
    const int64_t* tap_offsets;
    // Filter rows r_lo..r_hi-1 fall inside the image for this output row; the others multiply the
    // zero padding. With the filter row outermost in t, the channel kernels run only taps
    // [r_lo * C * S, r_hi * C * S): a 3x3 layer's first and last output rows skip a third of their
    // taps (4.8 % of the work at 14x14), as oneDNN skips them.
    int64_t tap_begin, tap_end;
    // 3x3 filter, stride 1, one column of zero padding on that side: the first (last) output
    // column's leftmost (rightmost) window column is all zeros, and the channel kernels skip it.
    bool skip_left_column, skip_right_column;
    // Distance between channel c's and channel c+1's rows under one filter row, the same for every
    // c and r in both layouts (ring: R slots per channel; staged: one padded plane per channel). The
    // AVX-512 channel kernel's edge blocks (3x3) walk the channels by it instead of loading an offset
    // per tap (the AVX2 one spilled registers doing so).
    int64_t channel_stride;
    // Channel kernels only: `out` is in the staged layout N,K/B,P,Q,B (cpu_conv2d.h, Conv2dStaged), at
    // (n, 0, p, 0), and out_stride = P * Q * B leads to the next block of B filters. Each block's
    // accumulators are then stored as whole vectors, with no transpose to N,K,P,Q.
    bool out_blocked = false;
};

using RowFn = void (*)(const RowJob&);

// Copies `count` rows of W floats, src + i * src_stride -> dst + i * dst_stride (zeros where src is
// null), with vector loads and stores compiled for the ISA. The last partial vector of a row is
// stored whole with zeros past W, so the 16 floats after each row's W must be writable and meant
// to be zero (the ring's pad and slack, the staged rows' border and the plane's slack).
using FillFn = void (*)(const float* src, int64_t src_stride, float* dst, int64_t dst_stride, int64_t count, int64_t W);
FillFn fill_function(int isa);

// Output rows per thread-pool chunk for both row drivers (cpu_conv2d_simd.cpp, which says why).
int64_t rows_per_chunk(int64_t rows_total, int threads);

// [SECTION] output-channel vectorised rows (cpu_conv2d_channels.cpp)

// Filters per block of the channel-vectorised kernel for this ISA (16 on AVX2, 32 on AVX-512), or
// 0 when it has none (baseline). Used when K is a multiple of it, C > 1, stride 1 and
// the kernel is at most 7x7 (channel_row_function gives nullptr otherwise).
int channel_block(int isa);
RowFn channel_row_function(int isa, int64_t S);
// One staged output block of `pixels` x B floats (channels fastest) -> B planes of `pixels` floats.
using UnblockFn = void (*)(const float* src, int64_t pixels, int64_t B, float* dst);
UnblockFn unblock_function(int isa);
// Filters K,C,R,S -> blocks [K / B][R][C][S][B] (B = channel_block), the layout whose B filter
// weights for one tap are one contiguous run of vector loads, in the taps' order (filter row
// outermost, see RowJob::tap_begin). `out` holds K*C*R*S floats.
void pack_filters_by_channel(const float* filters, int64_t K, int64_t C, int64_t R, int64_t S, int64_t B, float* out);

}  // namespace gpulab::cpu::conv_detail
