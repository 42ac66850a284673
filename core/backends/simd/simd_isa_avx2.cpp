// The SIMD activation kernel for AVX2 + FMA: 8 floats per instruction, fused multiply-add in the
// polynomials. core/CMakeLists.txt compiles this one file with -mavx2 -mfma; simd_math.cpp calls it
// only when __builtin_cpu_supports says the CPU has both, so the binary still runs on older CPUs.
// Verified by tests/test_cpu_backends.cpp ("every SIMD ISA on this CPU matches cpu-scalar").
#include "simd_kernels.h"

#if defined(__AVX2__) && defined(__FMA__)
#include "simd_kernels_impl.h"

namespace gpulab::cpu::simd_detail {
KernelFn avx2_kernel() { return &activation_kernel<8>; }
}  // namespace gpulab::cpu::simd_detail
#else
namespace gpulab::cpu::simd_detail {
KernelFn avx2_kernel() { return nullptr; }
}  // namespace gpulab::cpu::simd_detail
#endif
