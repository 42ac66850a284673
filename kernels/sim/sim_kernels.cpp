// The kernel headers compiled by the host compiler for the SIMT simulator: the device environment
// first (sim/sim_device_env.h), then the same headers nvcc compiles in activation.cu and conv2d.cu.
// Launch configurations come from the same functions the CUDA launchers call.
//
// Verified by tests/test_gpu_backends.cpp and tests/test_gpu_conv2d.cpp (cuda-sim equal to
// cpu-scalar) and tests/test_sim.cpp.
#include "sim_device_env.h"

#include "activation/activation_kernel.cuh"
#include "activation/activation_launch.h"
#include "conv2d/conv2d_kernels.cuh"
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

namespace {

// What the divergence kernel asks of the hardware, as the host compiler can spell it: the lesson's
// kernel reads both with inline PTX (activemask.b32, %clock64), which only nvcc compiles.
__global__ void divergence_kernel_reads(GlobalPtr<unsigned> out) {
    const unsigned mask = __activemask();
    out[threadIdx.x] = mask + static_cast<unsigned>(clock64());
}

}  // namespace

std::string divergence_kernel_refusal() {
    Buffer<unsigned> out("out", 32);
    const Result r = launch("divergence_kernel", {{1, 1, 1}, {32, 1, 1}, 0}, Options{}, &divergence_kernel_reads,
                            out.ptr());
    if (r.ok) return "";  // the simulator learned to model both; the lesson may then run it
    return r.error +
           ". The lesson's divergence kernel reads the active mask and clock64() with inline PTX (kernels/probes/divergence.cu), "
           "which only a GPU runs; "
           "the warp emulator (core/ops/simt.h) gives the theory instead.";
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
