// Matrix products in reduced precision, the plain way: the reference that `gpulab apply matmul`,
// the tensor-core kernel's tests and the lesson compare against.
//
//   C[i][j] = sum over k = 0, 1, ..., K-1 of round(A[i][k]) * round(B[k][j])
//
// A is M x K, B is K x N, C is M x N, all row-major float32. Inputs are rounded to `inputs`
// (core/ops/fp_formats.h: RNE, subnormals, overflow to infinity, NaN kept); each multiply-add takes
// the exact product, adds it to the running sum and rounds once into `accumulate`
// (core::multiply_add), k from 0 upwards. So FP32 accumulation here is what a fused multiply-add
// loop does, and FP16 accumulation is what an FP16 register summing one product at a time does.
// NaN and infinity propagate as IEEE arithmetic makes them.
//
// Verified by tests/test_mixed_matmul.cpp: worked examples, agreement with the FP64 reference
// within matmul_error_bound for every combination, NaN/infinity propagation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fp_formats.h"

namespace gpulab::core {

struct MatmulPrecision {
    FpFormat inputs = FpFormat::Fp32;
    FpFormat accumulate = FpFormat::Fp32;
};
// "BF16 inputs, FP32 accumulation"
std::string precision_label(const MatmulPrecision& p);

// C = round(A) x round(B), cpu-scalar's loop (see above). `c` is overwritten (the sum starts at 0).
void matmul_reduced(const float* a, const float* b, float* c, int64_t m, int64_t n, int64_t k, MatmulPrecision p);
// The same product of the unrounded inputs in FP64: the reference the errors are measured from.
void matmul_fp64(const float* a, const float* b, double* c, int64_t m, int64_t n, int64_t k);

// How far matmul_reduced may lie from matmul_fp64 for one output, given that output's
// S = sum_k |A[i][k]| |B[k][j]| (`sum_abs`) and sum_k (|A[i][k]| + |B[k][j]|) (`sum_abs_inputs`), when
// nothing overflows. Each input is rounded with relative error at most u_in = 2^-p_in (half a step,
// p_in significant bits; 0 for FP32 inputs, which are not rounded) or, where it underflows, half the
// smallest subnormal eta_in; each of the K multiply-adds rounds once, at most u_acc = 2^-p_acc
// relative or half the accumulator's smallest subnormal:
//   inputs = S (2 u_in + u_in^2) + (eta_in / 2)(1 + u_in) sum_abs_inputs + K eta_in^2 / 4
//   bound  = inputs + gamma_K (S + inputs) + K eta_acc / 2,      gamma_K = K u_acc / (1 - K u_acc)
// (the classic bound for a recursive sum, Higham, "Accuracy and Stability of Numerical Algorithms",
// section 3.1). Infinity when K u_acc >= 1: the sum can then lose everything (FP16 accumulation of
// 2,048 or more terms). A worst case: random signs usually stay far below it.
double matmul_error_bound(MatmulPrecision p, int64_t k, double sum_abs, double sum_abs_inputs);

// The worst |C - exact| / bound over `outputs` outputs of C = A x B (row-major, m x k times k x n,
// FP32 results): the four corners, then pseudo-random ones from a fixed generator, so every run
// checks the same outputs. The bound is matmul_error_bound(p, ...) times `margin`, plus the FP64
// reference's own rounding (K 2^-53 S); a NaN output counts as infinitely wrong. The speed tables
// check their products this way (core/workloads/tensor_speed.cpp, the cuBLAS rows in kernels/).
double sampled_matmul_error_ratio(MatmulPrecision p, double margin, const std::vector<float>& a,
                                  const std::vector<float>& b, const std::vector<float>& c, int64_t m, int64_t n,
                                  int64_t k, int outputs = 64);

}  // namespace gpulab::core
