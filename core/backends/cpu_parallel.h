// cpu-parallel: the fair CPU opponent. All cores (a persistent thread pool, thread_pool.h) and
// SIMD within each core (simd_math.h: vectorised math, including a polynomial exp for
// sigmoid/tanh/GELU instead of scalar expf), with the instruction set chosen at run time.
// Its bandwidth limit is measure_parallel_copy_limit (cpu_limit.h).
// Verified by tests/test_cpu_backends.cpp (equivalence with cpu-scalar, bandwidth limit, refusals).
#pragma once

#include <cstddef>
#include <string_view>

#include "backend.h"
#include "backends/simd/simd_math.h"  // simd_isa(): which instruction set ran ("AVX-512", "AVX2+FMA", "SSE2")

namespace gpulab::cpu {

// On best_simd_isa() (GPULAB_ISA when set), or on a chosen ISA (tests run every ISA the CPU has);
// an ISA this CPU lacks gives a backend whose runs fail with a sentence.
std::unique_ptr<core::Backend> make_parallel_backend();
std::unique_ptr<core::Backend> make_parallel_backend(SimdIsa isa);

// Threads cpu-parallel uses (the shared pool's size, the caller included).
int parallel_threads();

// Above this many bytes of input + output the output cannot stay in cache anyway, so cpu-parallel
// writes it with streaming stores, and so does the SIMD copy of its limit (cpu_limit.h): both skip
// the read-for-ownership of the destination. The threshold is one last-level cache as the kernel
// sees it (sysfs), else as the C library reports it, else 32 MiB.
std::size_t streaming_threshold_bytes();
bool uses_streaming_stores(std::size_t in_plus_out_bytes);

// A parallel copy of any number of bytes over the same pool and chunks as the activations: below
// the streaming threshold each chunk is a std::memcpy; above it, the SIMD copy with streaming
// stores (any last odd bytes by memcpy).
void parallel_copy(void* dst, const void* src, std::size_t bytes);

}  // namespace gpulab::cpu
