// This machine's two roofline numbers, measured rather than looked up: the FP32 peak (a loop of
// independent fused multiply-adds on every hardware thread, in the widest vectors the SIMD choice
// of core/backends/simd/simd_math.h allows, so nothing waits on memory or on a previous result) and the memory
// bandwidth (the fastest parallel copy of a buffer far larger than the caches, reusing
// cpu::measure_parallel_copy_limit, read + write bytes counted).
//
// The FMA loop keeps 16 accumulators per thread: an FMA takes about 4 cycles and a core starts two
// a cycle, so 8 or more independent chains keep both units busy. It is the ceiling no training
// kernel passes; the developers' 2-core AVX-512 box measures ~445 GFLOP/s (docs/benchmarks.md).
// Verified by tests/test_train_roofline.cpp (a positive peak under the ISA's theoretical bound for a
// plausible clock, a positive bandwidth, an honest description).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "roofline.h"

namespace gpulab::train {

struct MeasuredPeaks {
    bool ok = false;
    double flops = 0.0;  // FP32 FLOP/s, all threads together
    int threads = 0;
    std::string isa;           // "AVX-512", "AVX2+FMA", "SSE2"
    int lanes = 0;             // floats per vector of that ISA
    double bytes_per_s = 0.0;  // the copy's read + write bytes per second
    std::string copy_name;     // "copy (2 threads, AVX-512)", from cpu_limit.h
    std::size_t copy_bytes = 0;
    std::int64_t took_ns = 0;  // the whole measurement
    std::string error;         // why not, when !ok
};

// ~`fma_ns` of FMA loop (best of three rounds) on `threads` threads (<= 0: the hardware's), then the
// copy of `copy_bytes` per buffer. Never throws; a failure is ok = false with the sentence.
MeasuredPeaks measure_peaks(std::int64_t fma_ns = 150'000'000, std::size_t copy_bytes = std::size_t{128} << 20,
                            int threads = 0);

// Only the FMA loop: FLOP/s on `threads` threads for about `ns` (best of three).
double measure_fma_flops(int threads, std::int64_t ns);

// The roofline's machine for these measurements, its source Measured.
Machine machine_of(const MeasuredPeaks& peaks);

}  // namespace gpulab::train
