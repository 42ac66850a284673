// Speed, honestly labelled (issue 29 part 4, CPU side): matrix-product GFLOP/s per precision and
// backend, C = A x B with square m = n = k, five rows:
//
//   cpu-parallel FP32   our packed, cache-blocked product (backends/simd/gemm_packed.h) on all cores
//   cpu-parallel BF16   our AMX kernel (backends/simd/gemm_bf16.h), inputs rounded while packed
//   cpu-parallel BF16   our VDPBF16PS kernel, the same
//   cpu-onednn FP32     oneDNN's matmul primitive
//   cpu-onednn BF16     oneDNN's matmul with BF16 inputs (rounded before the clock starts), FP32 output
//
// Each row names the path that ran ("native VDPBF16PS (AVX512_BF16)", "oneDNN brg:avx512_core_amx_bf16,
// native: AMX tiles (TDPBF16PS)") or says why it did not ("this CPU has no AVX512_BF16 ..."). Warm-up,
// then samples until MeasureConfig says stop; median and min .. max. Each result is checked at 64
// sampled outputs against the exact (FP64) sum of the rounded inputs, within core::matmul_error_bound
// for FP32 accumulation. Used by `gpulab bench --suite tensor`; the tensor lesson can show the same rows.
// Verified by tests/test_gemm_bf16.cpp (a small run: rows, paths, checks).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "measure/stats.h"
#include "ops/fp_formats.h"
#include "activation_workload.h"

namespace gpulab::core {

struct GemmSpeedRow {
    std::string backend;            // "cpu-parallel" or "cpu-onednn"
    FpFormat inputs = FpFormat::Fp32;  // Fp32 or Bf16; the sums are FP32 in every row
    bool ran = false;
    bool native = false;            // BF16 rows: the CPU multiplied BF16 numbers (FP32 rows: true)
    std::string instruction;        // our BF16 rows: "AMX" or "VDPBF16PS", the kernel's instruction; else ""
    std::string path;               // what ran, or (ran == false) why not: a sentence
    Stats time;                     // one product
    double gflops = 0.0;            // 2 m n k / median time
    double gflops_min = 0.0;        // ... / slowest sample
    double gflops_max = 0.0;        // ... / fastest sample
    bool check_pass = false;
    double worst_error_ratio = 0.0;  // largest |C - exact| / bound over the sampled outputs (<= 1 passes)
    std::string error;               // a run that failed part-way
    // "" when measured here; else where (a GPU run shipped with gpulab, issue 39: "recorded on NVIDIA
    // H200, 2026-11-28"). Set for display and export only: a stored result's rows have it empty.
    std::string source;
};

struct GemmSpeedRun {
    int64_t size = 0;  // m = n = k
    std::vector<GemmSpeedRow> rows;
    // The ratios the targets are about (0 when a row did not run): BF16 / FP32 of each backend, ours / oneDNN's BF16;
    // "ours" in BF16 is the faster of our two kernels that ran.
    double ours_bf16_over_fp32() const;
    double onednn_bf16_over_fp32() const;
    double ours_over_onednn_bf16() const;
    // Our FP32 product over oneDNN's (issue 45's target: >= 1.0x from 1024^3 to 4096^3).
    double ours_over_onednn_fp32() const;
    // The first row of that backend and precision that ran (else the first of them, else nullptr).
    const GemmSpeedRow* row(const std::string& backend, FpFormat inputs) const;
};

// x's median GFLOP/s over y's; 0 when either is missing or did not run.
double gflops_ratio(const GemmSpeedRow* x, const GemmSpeedRow* y);

// Which rows a run measures: all five, or the two FP32 ones (ours and oneDNN's): at 2048^3 and 4096^3
// only FP32 is asked about (issue 45), and the BF16 rows would double the time.
enum class GemmRows { All, Fp32Only };

// Measures the rows at size^3. Inputs are fixed pseudo-random numbers in [-1, 1).
GemmSpeedRun measure_gemm_speed(int64_t size, const MeasureConfig& config, GemmRows rows = GemmRows::All);

// Warm-up, then samples of `run` (which returns "" or an error) as MeasureConfig says; fills row's time
// and GFLOP/s for `flops` per call and sets ran. An exception from `run` becomes row.error.
void time_gemm_row(GemmSpeedRow& row, const MeasureConfig& config, double flops, const std::function<std::string()>& run);

}  // namespace gpulab::core
