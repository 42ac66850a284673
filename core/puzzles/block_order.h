// The order in which gpulab-kernel-runner runs a case's blocks: shuffled by a fixed seed
// (sim::Options::block_order_seed), so a kernel whose answer depends on the order of its blocks
// fails as it would, by chance, on some GPU, and the verdict is the same on every run and machine.
// A message about something the order could change (a wrong answer, a race between blocks, a
// kernel that waits for other blocks) says the seed.
#pragma once

#include <cstdint>
#include <string>

namespace gpulab::puzzles {

inline constexpr uint64_t kBlockOrderSeed = 12345;

// "blocks ran in shuffled order, seed 12345" for a grid of 2 or more blocks, else "".
inline std::string block_order_note(int64_t blocks) {
    return blocks < 2 ? std::string() : "blocks ran in shuffled order, seed " + std::to_string(kBlockOrderSeed);
}

}  // namespace gpulab::puzzles
