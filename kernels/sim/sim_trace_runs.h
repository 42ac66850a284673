// The real kernels traced on the SIMT simulator for the lessons' "inside the kernel" views: one
// block of a launch, every access recorded (sim_runtime.h, Options::trace) and paired into warp
// requests with their costs (sim/sim_trace.h). Plain C++, every build; never throws. Tracing runs
// only the one block asked for, so it is cheap on any input size.
//
// Verified by tests/test_sim.cpp ("block traces ...").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "activation/activation_launch.h"
#include "ops/conv2d.h"
#include "conv2d/conv2d_launch.h"
#include "ops/op_desc.h"
#include "sim_trace.h"
#include "ops/tensor.h"

namespace gpulab::sim {

// Block (bx, by) of plane 0 of the tiled convolution on the run's own input and filters.
struct ConvBlockTrace {
    bool ok = false;
    std::string error;   // shape the tiled kernel does not take, block outside the grid, a failed check
    kern::ConvShape shape{};
    kern::LaunchShape launch;
    Trace trace;
    std::vector<WarpRequest> requests;
};
ConvBlockTrace trace_conv2d_block(const core::Conv2dDesc& d, const core::Tensor& input, const core::Tensor& filters,
                                  unsigned bx, unsigned by);

// Block 0 of the activation kernel over `n` generated elements, with `in` and `out` starting
// `in_offset` / `out_offset` floats (0..3) past a 256-byte boundary, as run_activation_at_offsets.
struct ActivationTrace {
    bool ok = false;
    std::string error;
    int in_offset = 0, out_offset = 0;
    kern::ActivationSplit split;
    kern::LaunchShape launch;
    Trace trace;
    std::vector<WarpRequest> requests;
    int in_region = -1;  // Trace::regions index of the input buffer
};
ActivationTrace trace_activation_block(const core::OpDesc& op, int64_t n, int in_offset, int out_offset);

}  // namespace gpulab::sim
