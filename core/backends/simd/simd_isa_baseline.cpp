// The SIMD activation kernel at the baseline ISA: 4 floats per vector, which is SSE2 on every
// x86-64 CPU and NEON on 64-bit ARM. The fallback when AVX2 / AVX-512 are absent.
// Verified by tests/test_cpu_backends.cpp ("every SIMD ISA on this CPU matches cpu-scalar").
#include "simd_kernels.h"
#include "simd_kernels_impl.h"

namespace gpulab::cpu::simd_detail {

KernelFn baseline_kernel() { return &activation_kernel<4>; }

}  // namespace gpulab::cpu::simd_detail
