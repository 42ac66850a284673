// cpu-parallel: the fair CPU opponent. All cores (a persistent thread pool, thread_pool.h) and
// SIMD within each core (simd_math.h: vectorised math, including a polynomial exp for
// sigmoid/tanh/GELU instead of scalar expf), with the instruction set chosen at run time.
// Verified by tests/test_cpu_backends.cpp (equivalence with cpu-scalar, bandwidth limit, refusals).
#pragma once

#include <cstddef>
#include <string_view>

#include "backend.h"
#include "simd_math.h"  // simd_isa(): which instruction set ran ("AVX-512", "AVX2+FMA", "SSE2")

namespace gpulab::cpu {

std::unique_ptr<core::Backend> make_parallel_backend();

// Threads cpu-parallel uses (the shared pool's size, the caller included).
int parallel_threads();

// Above this many bytes of input + output (the last-level cache, or 32 MiB when unknown), the
// output cannot stay in cache anyway, so cpu-parallel writes it with streaming stores, and so does
// its memcpy limit: both skip the read-for-ownership of the destination.
std::size_t streaming_threshold_bytes();
bool uses_streaming_stores(std::size_t in_plus_out_bytes);

// Parallel memcpy over the same pool and chunks as the activations: the bandwidth limit
// cpu-parallel is measured against. Below the streaming threshold each chunk is a std::memcpy;
// above it, a copy with streaming stores. `bytes` need not be a multiple of anything.
void parallel_copy(void* dst, const void* src, std::size_t bytes);

// The limit itself: parallel_copy over two buffers of `bytes` each, one warm-up (page faults),
// then the median of 7 runs, read + write bytes counted. Refuses sizes that do not fit in memory.
// Shared by the CPU peers (cpu-parallel, cpu-onednn): the memory system is the same for both.
core::LimitResult measure_parallel_memcpy(std::size_t bytes);

}  // namespace gpulab::cpu
