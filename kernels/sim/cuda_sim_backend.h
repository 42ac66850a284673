// cuda-sim: gpulab's own CUDA kernels run by the SIMT simulator on the CPU, behind core::Backend.
// Available on every machine (CPU-only builds included), so every commit runs the real kernel code;
// its results are checked like any backend's, its time is the simulator's and never a GPU speed
// (the name and description say so; nothing here times a GPU).
//
// Not in gpu::make_backends(): the app's lesson tables, speed plots and `bench` list those, and the
// simulated kernel must not appear there as if it were a GPU (issue 14 point 5 decides how the app
// shows it). Tests and tools ask for it here.
//
// Verified by tests/test_gpu_backends.cpp and tests/test_gpu_conv2d.cpp (the same test bodies as
// cuda-kernel and cuda-naive, on every machine) and tests/test_sim.cpp.
#pragma once

#include <memory>

#include "backends/backend.h"

namespace gpulab::sim {

// "cuda-sim": the activation kernel and cuda-kernel's choice of convolution kernel (tiled, naive
// past stride 4).
std::unique_ptr<core::Backend> make_cuda_sim_backend();
// "cuda-sim-naive": cuda-naive's one-thread-per-output convolution, simulated.
std::unique_ptr<core::Backend> make_cuda_sim_naive_backend();

// cuda-sim's twin of gpu::run_activation_at_offsets: in and out start `in_offset` / `out_offset`
// floats (0..64) past 256-byte-aligned simulator buffers. Never throws.
core::RunResult run_activation_at_offsets(const core::OpDesc& op, const core::Tensor& in, core::Tensor& out,
                                          int in_offset, int out_offset);

}  // namespace gpulab::sim
