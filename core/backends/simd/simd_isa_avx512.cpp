// The SIMD activation kernel for AVX-512: 16 floats per instruction. core/CMakeLists.txt compiles
// this one file with -mavx512f -mfma; simd_math.cpp calls it only when __builtin_cpu_supports
// reports avx512f (which also checks that the OS saves the 512-bit registers).
// Verified by tests/test_cpu_backends.cpp ("every SIMD ISA on this CPU matches cpu-scalar").
#include "simd_kernels.h"

#if defined(__AVX512F__) && defined(__FMA__)
#include "simd_kernels_impl.h"

namespace gpulab::cpu::simd_detail {
KernelFn avx512_kernel() { return &activation_kernel<16>; }
}  // namespace gpulab::cpu::simd_detail
#else
namespace gpulab::cpu::simd_detail {
KernelFn avx512_kernel() { return nullptr; }
}  // namespace gpulab::cpu::simd_detail
#endif
