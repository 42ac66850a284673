// The tensor-core GEMM on the GPU (tensor_gemm.h): packs the operands on the host exactly as the
// simulator does (mma_launch.h: padding, RNE to FP16 or BF16, 32-bit pairs), copies them over,
// launches mma_gemm_kernel or mma_gemm_tiled_kernel with the grid of mma_gemm_launch (the same
// function the simulator calls), times the kernel alone with CUDA events, and copies D back. Every CUDA call is checked
// (cuda_check.cuh); a GPU below compute capability 8.0, where mma.sync.m16n8k16 for FP16/BF16 does
// not exist, is refused with a sentence before any work.
//
// Verified on cuda-sim by tests/test_tensor_kernel.cpp (the same kernel source); its gpu-suite case
// runs this file where a GPU exists. Not yet run on a GPU: docs/gpu-verification.md.
#include "tensor_gemm.h"

#include <cuda_runtime.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_check.cuh"
#include "cuda/cuda_device_env.cuh"
#include "cuda/device_buffer.cuh"
#include "cuda/staged_backend.cuh"
#include "gpu_backends.h"
#include "mma_device_cuda.cuh"
#include "mma_kernels.cuh"
#include "mma_launch.h"

namespace gpulab::cuda {

namespace {

void run(gpu::MmaGemmRun& r, kern::MmaInput in, const float* a, const float* b, float* d, int64_t m, int64_t n,
         int64_t k, kern::MmaKernel kernel, cudaStream_t s) {
    const kern::MmaOperands o = kern::pack_mma_operands(in, a, b, nullptr, m, n, k);
    DeviceBuffer<uint32_t> d_a(o.a.size()), d_bt(o.bt.size());
    DeviceBuffer<float> d_c(o.c.size()), d_d(o.c.size());
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_a.data(), o.a.data(), o.a.size() * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    GPULAB_CUDA_CHECK(
        cudaMemcpyAsync(d_bt.data(), o.bt.data(), o.bt.size() * sizeof(uint32_t), cudaMemcpyHostToDevice, s));
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_c.data(), o.c.data(), o.c.size() * sizeof(float), cudaMemcpyHostToDevice, s));
    const kern::LaunchShape l = kern::mma_gemm_launch(o.shape, kernel);
    const dim3 grid(l.grid.x, l.grid.y, l.grid.z), block(l.block.x, l.block.y, l.block.z);
    const Event start, stop;
    start.record(s);
    const bool fp16 = in == kern::MmaInput::Fp16;
    if (kernel == kern::MmaKernel::Tiled && fp16)
        kern::mma_gemm_tiled_kernel<kern::MmaInput::Fp16><<<grid, block, 0, s>>>(d_a.data(), d_bt.data(), d_c.data(), d_d.data(), o.shape);
    else if (kernel == kern::MmaKernel::Tiled)
        kern::mma_gemm_tiled_kernel<kern::MmaInput::Bf16><<<grid, block, 0, s>>>(d_a.data(), d_bt.data(), d_c.data(), d_d.data(), o.shape);
    else if (fp16)
        kern::mma_gemm_kernel<kern::MmaInput::Fp16><<<grid, block, 0, s>>>(d_a.data(), d_bt.data(), d_c.data(), d_d.data(), o.shape);
    else
        kern::mma_gemm_kernel<kern::MmaInput::Bf16><<<grid, block, 0, s>>>(d_a.data(), d_bt.data(), d_c.data(), d_d.data(), o.shape);
    GPULAB_CUDA_CHECK_LAUNCH();
    stop.record(s);
    std::vector<float> h_d(o.c.size());
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(h_d.data(), d_d.data(), h_d.size() * sizeof(float), cudaMemcpyDeviceToHost, s));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
    r.kernel_ns = elapsed_ns(start, stop);
    kern::unpack_mma_result(o.shape, h_d.data(), d, m, n);
}

}  // namespace

}  // namespace gpulab::cuda

namespace gpulab::gpu {

MmaGemmRun run_mma_gemm(kern::MmaInput in, const float* a, const float* b, float* d, int64_t m, int64_t n, int64_t k,
                        kern::MmaKernel kernel) {
    MmaGemmRun r;
    std::unique_ptr<cuda::Stream> stream;
    try {
        const GpuProbe& p = probe();
        if (!p.device_ok) {
            r.error = p.reason;
            return r;
        }
        if (std::string lost = cuda::context_lost_reason(); !lost.empty()) {
            r.error = std::move(lost);
            return r;
        }
        if (p.cc_major < 8) {
            r.error = "the tensor-core kernel uses mma.sync.m16n8k16 with " + std::string(kern::mma_input_label(in)) +
                      " inputs, which needs compute capability 8.0 (Ampere) or newer; this GPU is " +
                      std::to_string(p.cc_major) + "." + std::to_string(p.cc_minor);
            return r;
        }
        if (std::string why = kern::mma_gemm_problem(m, n, k); !why.empty()) {
            r.error = std::move(why);
            return r;
        }
        stream = std::make_unique<cuda::Stream>();
        cuda::run(r, in, a, b, d, m, n, k, kernel, stream->get());
        r.ok = true;
    } catch (const std::exception& e) {
        r.ok = false;
        r.error = e.what();
    } catch (...) {
        r.ok = false;
        r.error = "tensor-core GEMM: unknown error";
    }
    if (!r.ok && stream) cuda::note_if_context_lost(stream->get(), r.error);
    return r;
}

}  // namespace gpulab::gpu
