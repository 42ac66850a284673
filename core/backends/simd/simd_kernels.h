// Internal seam between the ISA dispatcher (simd_math.cpp) and the per-ISA kernel files
// (simd_isa_baseline.cpp, simd_isa_avx2.cpp, simd_isa_avx512.cpp).
//
// Only plain types cross it, on purpose: the ISA files are compiled with -mavx2 / -mavx512f, and
// any inline C++ function they shared with the rest of the program (from <string>, op_desc.h,
// hd_math.h, ...) could be emitted there with AVX-512 instructions and picked by the linker for
// everyone, crashing CPUs without AVX-512. So those files include this header and
// simd_kernels_impl.h only. Verified by tests/test_cpu_backends.cpp, which runs every ISA this CPU
// has against cpu-scalar.
#pragma once

#include <cstdint>

namespace gpulab::cpu::simd_detail {

// kOpCopy is the identity through the same loop: the copy that activations are measured against.
enum OpCode : int { kOpRelu = 0, kOpLeakyRelu = 1, kOpSigmoid = 2, kOpTanh = 3, kOpGelu = 4, kOpCopy = 5 };

// Applies one op to n floats, single-threaded. `in` may equal `out`. With `stream`, the output is
// written with streaming (non-temporal) stores that bypass the cache.
using KernelFn = void (*)(int op, float alpha, const float* in, float* out, int64_t n, bool stream);

// Each returns nullptr when its file was built without the ISA (another architecture, or a
// compiler without the flags); the baseline always exists.
KernelFn baseline_kernel();
KernelFn avx2_kernel();
KernelFn avx512_kernel();

}  // namespace gpulab::cpu::simd_detail
