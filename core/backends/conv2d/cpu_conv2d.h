// cpu-parallel's convolution: direct (no im2col) for most shapes, threaded over output rows and vectorised
// across output columns, with the instruction set picked at run time like simd_math.h.
//
// For one output row (n, p) a thread first copies the R input rows the window touches, for every
// channel, into a zero-padded scratch ring (rows shared with the previous output row are kept),
// so the inner loop never tests a border. Then, for a block of up to 4 filters and up to 4
// vectors of output columns (64 floats with AVX-512), the accumulators stay in registers while
// every tap (c, r, s) adds weight * shifted input row:
//
//     out[k..k+3][q..q+63] += f[k..k+3][c][r][s] * row_c_r[q+s .. q+s+63]     (stride 1)
//
// Each input vector loaded is used by 4 filters, each broadcast weight by 4 vectors: 16 FMAs per
// 8 loads, so the loop is limited by the FMA units rather than by loads. Strides above 1 take a
// plain loop over the same scratch rows (still threaded). CNN layers (K a multiple of 16 / 32,
// C > 1, stride 1) take a second kernel over the same scratch rows with output channels in the
// vector instead of columns: cpu_conv2d_channels.cpp.
// Shapes with many filters that fit neither kernel (one input channel, K not a multiple of the block,
// strides above 1) take im2col + the training matrix product instead: cpu_conv2d_gemm.h; the rule is
// conv_path() in cpu_conv2d_simd.cpp and the implementation line names the path that ran.
// cpu-parallel's timed runs of the channel kernel skip the ring: they read a zero-bordered copy of
// the input and write blocks of channels, both made outside the clock (Conv2dStaged, below,
// cpu_conv2d_staged.cpp), as oneDNN's timed runs work in its blocked layouts. Training keeps the ring.
// Verified by tests/test_conv2d.cpp: every ISA this CPU has against cpu-scalar, odd sizes.
#pragma once

#include <string>
#include <vector>

#include "ops/conv2d.h"
#include "backends/simd/simd_math.h"
#include "ops/tensor.h"

namespace gpulab::cpu {

// input N,C,H,W; filters K,C,R,S; output N,K,P,Q; the shape must be valid. Uses the shared pool.
void conv2d_parallel(const core::Conv2dDesc& d, const float* input, const float* filters, float* output);
// The same plus a bias per filter (K floats) added to every output of that filter: training's
// convolution forward (core/train/cpu_parallel_layers.cpp), so the lesson and training share one.
void conv2d_parallel_bias(const core::Conv2dDesc& d, const float* input, const float* filters, const float* bias,
                          float* output);
// The same with a chosen ISA; false (nothing written) when this CPU or build lacks it.
bool conv2d_parallel_with(SimdIsa isa, const core::Conv2dDesc& d, const float* input, const float* filters,
                          float* output);

// The filters in the layout the kernel chosen for (isa, desc) reads: the output-channel kernel's
// blocks (cpu_conv2d_channels.cpp), or the caller's K,C,R,S unchanged (`packed` empty; `source`
// must then outlive its use). cpu-parallel's timed runs make it before their clock starts, as
// cpu-onednn reorders its weights into its own layout before its clock: both time the convolution
// alone, and a network whose weights do not change between calls pays the packing once.
struct Conv2dFilters {
    SimdIsa isa = SimdIsa::Baseline;
    core::Conv2dDesc desc;
    const float* source = nullptr;
    std::vector<float> packed;
    const float* data() const { return packed.empty() ? source : packed.data(); }
};
// False (nothing made) when this CPU or build lacks `isa`.
bool prepare_filters(SimdIsa isa, const core::Conv2dDesc& d, const float* filters, Conv2dFilters& out);
// conv2d_parallel_with(f.isa, f.desc, input, <the filters f was made from>, output), without the packing.
void conv2d_parallel_prepared(const Conv2dFilters& f, const float* input, float* output);

// [SECTION] staged runs: the timed arrangement of cpu-parallel's run_conv2d, which is oneDNN's
// (cpu_onednn.cpp): the input is put into the kernel's working layout before the clock starts, the
// convolution runs in it, and the result is put back into N,K,P,Q after the clock stops, so both
// backends time the convolution alone, as a network that stays in its layout between layers pays
// it. The working layouts: input N,C,H+2pad,W+2pad with a zero border (no scratch ring, no border
// tests), output N,K/B,P,Q,B with B = the channel kernel's block (each block's accumulators are
// stored as whole vectors, no transpose). Only the output-channel kernel has a staged form; the
// conversions' cost is measured beside the convolution in docs/benchmarks.md.
struct Conv2dStaged {
    core::FloatBuffer input;     // N, C, planes of (H + 2 pad) x (W + 2 pad) + 16 floats of slack
    core::FloatBuffer output;    // N, K / B, P, Q, B
    std::vector<int64_t> taps;   // tap t = (r * C + c) * S + s at offset c * plane + r * (W + 2 pad) + s
    int64_t shape[8] = {};       // what `input`'s zero border and `taps` were made for
};
// True when the channel kernel runs this shape on this ISA (the only kernel with a staged form).
bool conv2d_can_stage(SimdIsa isa, const core::Conv2dDesc& d);
// Bytes the staged copies of input and output take (cpu-parallel runs the ring path when they do not fit).
std::size_t conv2d_staged_bytes(SimdIsa isa, const core::Conv2dDesc& d);
// Sizes `s` for f's shape and copies `input` (N,C,H,W) into it, border zeroed. Uses the shared pool.
void conv2d_stage_input(const Conv2dFilters& f, const float* input, Conv2dStaged& s);
// The convolution alone, s.input -> s.output (the timed part). Requires conv2d_can_stage(f.isa, f.desc).
void conv2d_parallel_staged(const Conv2dFilters& f, Conv2dStaged& s);
// s.output -> `output` (N,K,P,Q). Uses the shared pool.
void conv2d_unstage_output(const Conv2dFilters& f, const Conv2dStaged& s, float* output);

// "direct, AVX-512 (16 floats), 4 filters x 64 columns in registers, 2 threads"
std::string conv2d_parallel_implementation(const core::Conv2dDesc& d);
std::string conv2d_parallel_implementation(const core::Conv2dDesc& d, SimdIsa isa);

}  // namespace gpulab::cpu
