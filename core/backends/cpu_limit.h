// The bandwidth limit of the CPU backends: "how fast can this backend move these bytes at all",
// the denominator of the "fraction of limit" the app shows next to every CPU activation.
//
// A limit the op beats is not a limit, so each one is the fastest plain copy the backend could do
// over the same number of bytes, measured the way the op is measured:
//   - buffers allocated once, touched, and warmed by untimed runs before any timed one (the op's
//     buffers are warm too; a cold copy with page faults would flatter the op);
//   - every candidate copy timed in turn, round after round, so a burst of noise from another
//     process hits all of them alike; the median of each, and the best median wins;
//   - the name says which copy won and how it ran, e.g. "copy (2 threads, AVX-512)",
//     "memcpy (2 threads)", "memcpy (1 thread)".
// Candidates for cpu-parallel (and cpu-onednn, which shares the machine's memory system): glibc
// memcpy per chunk, and the activations' own SIMD loop doing a copy (same pool, same chunks, same
// streaming-store decision, see cpu_parallel.h). For cpu-scalar: one std::memcpy of the whole
// buffer, and a loop of scalar stores, one float at a time, like cpu-scalar's own loop.
// Buffers of up to 32 MiB each are kept for the next call at the same size (a sweep or repeated
// runs), so small sizes do not pay allocation and page faults again.
//
// Verified by tests/test_cpu_backends.cpp: positive limits with honest names at small and large
// sizes, refusal of impossible sizes, and a cpu-parallel ReLU that does not beat its limit.
#pragma once

#include <cstddef>

#include "backend.h"

namespace gpulab::cpu {

// cpu-parallel and cpu-onednn: the better of the two parallel copies above. Read + write bytes
// counted. Refuses sizes that do not fit in memory and empty copies, with a message.
core::LimitResult measure_parallel_copy_limit(std::size_t bytes);

// cpu-scalar: the better of one memcpy and a scalar-store loop on the calling thread.
core::LimitResult measure_single_thread_copy_limit(std::size_t bytes);

}  // namespace gpulab::cpu
