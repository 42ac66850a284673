// The FP32 matrix product's ladder measured (issue 45, item 2): each rung of backends/simd/gemm_rungs.h
// at one size, its GFLOP/s and its fraction of the FMA peak measured on the same cores in the same run,
// so the lesson and `gpulab bench --suite tensor` show what each idea is worth, and the BF16 and GPU
// speeds stand on a fair FP32 base (the last rung is cpu-parallel's product).
//
// The peak: a burst of independent FMAs in the micro-kernel's registers (cpu::run_fma_burst) timed on
// one core, and on every core of the pool at once; the best of a few tries, since a busy machine only
// ever makes it lower. Rungs 1-4 are compared with the one-core peak, the last with the all-cores one.
// Each rung's product is checked at 64 sampled outputs against the FP64 sum, within the FP32 sum's
// bound. Verified by tests/test_gemm_packed.cpp (a small ladder: every row ran and matched; no timing).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/simd/gemm_rungs.h"
#include "tensor_speed.h"

namespace gpulab::core {

struct GemmRungRow {
    cpu::GemmRung rung = cpu::GemmRung::NaiveLoops;
    GemmSpeedRow speed;            // backend "cpu-parallel", FP32; path: the rung's name
    int threads = 1;               // cores it ran on
    double fraction_of_peak = 0.0;  // median GFLOP/s over the measured peak of those cores
};

struct FmaPeak {
    double one_core_gflops = 0.0;
    double all_cores_gflops = 0.0;
    int threads = 1;  // the pool's size
};

struct GemmLadder {
    int64_t size = 0;   // m = n = k
    std::string isa;    // "AVX-512 (the best this CPU has)": cpu::isa_summary()
    FmaPeak peak;
    std::vector<GemmRungRow> rows;
};

// The FMA peak of this machine on best_simd_isa(), one core and all the pool's cores.
FmaPeak measure_fma_peak();

// Every rung at size^3 (the naive rungs take seconds past 512^3 on a laptop core: keep it small).
GemmLadder measure_gemm_ladder(int64_t size, const MeasureConfig& config);

}  // namespace gpulab::core
