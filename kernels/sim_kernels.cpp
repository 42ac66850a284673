// The kernel headers compiled by the host compiler for the SIMT simulator: the device environment
// first (sim/sim_device_env.h), then the same headers nvcc compiles in activation.cu and conv2d.cu.
// Launch configurations come from the same functions the CUDA launchers call.
//
// Verified by tests/test_gpu_backends.cpp and tests/test_gpu_conv2d.cpp (cuda-sim equal to
// cpu-scalar) and tests/test_sim.cpp.
#include "sim/sim_device_env.h"

#include "activation_kernel.cuh"
#include "activation_launch.h"
#include "conv2d_kernels.cuh"
#include "sim_kernels.h"

namespace gpulab::sim {

int model_resident_blocks(int threads_per_block) {
    return kModelSms * std::max(1, kModelThreadsPerSm / std::max(1, threads_per_block));
}

namespace {

LaunchConfig config_of(const kern::LaunchShape& l) {
    return {{l.grid.x, l.grid.y, l.grid.z}, {l.block.x, l.block.y, l.block.z}, l.shared_bytes};
}

}  // namespace

Result run_activation(const core::OpDesc& op, GlobalPtr<const float> in, GlobalPtr<float> out, int64_t n,
                      const Options& options) {
    if (n <= 0) return {true, "", {}};  // as the CUDA launcher: nothing to launch
    const kern::ActivationSplit split = kern::activation_split(reinterpret_cast<std::uintptr_t>(in.raw()),
                                                               reinterpret_cast<std::uintptr_t>(out.raw()), n);
    const LaunchConfig c = config_of(
        kern::activation_launch(split, model_resident_blocks(static_cast<int>(kern::kActivationThreads))));
    const auto run = [&](auto f) {
        return launch("activation_kernel", c, options, &kern::activation_kernel<decltype(f)>, in, out, split.head,
                      split.n_vec, n, f);
    };
    Result unknown;
    unknown.error = "activation_kernel: unknown activation " + std::to_string(static_cast<int>(op.activation));
    return kern::with_activation_op(op, run, unknown);
}

Result run_conv2d(kern::Conv2dKernel which, const kern::ConvShape& s, GlobalPtr<const float> in,
                  GlobalPtr<const float> filters, GlobalPtr<float> out, const Options& options) {
    const LaunchConfig c = config_of(kern::conv2d_launch(which, s));
    if (which == kern::Conv2dKernel::Naive) {
        return launch("conv2d_naive_kernel", c, options, &kern::conv2d_naive_kernel, in, filters, out, s,
                      s.planes * s.out_h * s.out_w);
    }
    return launch("conv2d_tiled_kernel", c, options, &kern::conv2d_tiled_kernel, in, filters, out, s);
}

}  // namespace gpulab::sim
