// Reproducible inputs for products and checks: `count` floats spread evenly over [-1, 1), the same
// on every machine and every run for a given seed (a 64-bit linear congruential generator, Knuth's
// MMIX constants; the top 24 bits make the float exactly). Not for anything that needs randomness
// of quality: the matrix-product checks, the speed workload and their tests use it so that every
// one of them multiplies the same numbers.
#pragma once

#include <cstdint>
#include <vector>

namespace gpulab::core {

inline std::vector<float> uniform_signed_floats(int64_t count, uint64_t seed) {
    std::vector<float> v(static_cast<std::size_t>(count > 0 ? count : 0));
    uint64_t s = seed;
    for (float& x : v) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        x = static_cast<float>(s >> 40) / 16777216.0f * 2.0f - 1.0f;
    }
    return v;
}

}  // namespace gpulab::core
