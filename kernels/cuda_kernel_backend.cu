// Backends "cuda-kernel" and "cuda-naive": gpulab's own CUDA kernels behind core::Backend.
//
// What they compute: cuda-kernel runs every activation of core::Activation with the formulas of
// core/ops/hd_math.h (activation.cu) and 2D convolution with the tiled shared-memory kernel
// (conv2d.cu; the naive one for strides above 4, where a tile has nothing to reuse). cuda-naive
// exists for the convolution lesson only: the same convolution with one thread per output and no
// shared memory, so the lesson can show what the tile buys. It offers no activation (supports()
// is false), and make_conv2d_extra_backends() lists it, not make_backends().
// Thread mappings: one float4 per thread per grid-stride step for activations (activation.cu);
// 16x16 outputs per block over a shared input tile, or one output per thread (conv2d.cu).
// Timing and staging: StagedGpuBackend (staged_backend.cuh): upload, compute and download phases,
// each bracketed by CUDA events on one stream; pinned staging buffers that grow as needed.
//
// Verified by tests/test_gpu_backends.cpp: equal to cpu-scalar for all five activations at sizes
// 1, 31, 33, 1000 and 2^20+7, and at input/output offsets that exercise the head and tail paths;
// and by tests/test_gpu_conv2d.cpp: both convolution kernels equal to cpu-scalar.
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "activation/activation.cuh"
#include "conv2d/conv2d.cuh"
#include "cuda/cuda_check.cuh"
#include "cuda/device_buffer.cuh"
#include "gpu_internal.h"
#include "gpu_testing.h"
#include "cuda/staged_backend.cuh"

namespace gpulab::cuda {

namespace {

class CudaKernelBackend final : public StagedGpuBackend {
public:
    std::string_view name() const override { return "cuda-kernel"; }
    std::string_view description() const override {
        return "gpulab's own CUDA kernel: thousands of GPU threads each apply the function to four "
               "neighbouring elements at a time (float4), striding over the whole array.";
    }
    bool supports(const core::OpDesc& op) const override { return op.kind == core::OpKind::Activation; }
    std::string conv2d_implementation(const core::Conv2dDesc& d) const override {
        if (!supports_conv2d(d)) return "";
        if (conv2d_kernel_for(d) == Conv2dKernel::Tiled) return conv2d_kernel_label(Conv2dKernel::Tiled);
        return std::string(conv2d_kernel_label(Conv2dKernel::Naive)) +
               " (stride above 4: windows share too few inputs for a tile to pay)";
    }

protected:
    void compute(const core::OpDesc& op, const float* d_in, float* d_out, int64_t n, cudaStream_t stream) override {
        launch_activation(op, d_in, d_out, n, stream);
    }
    std::string conv2d_problem(const core::Conv2dDesc& d) const override { return conv2d_kernel_problem(d); }
    void compute_conv2d(const core::Conv2dDesc& d, const float* d_in, const float* d_filters, float* d_out,
                        cudaStream_t stream) override {
        launch_conv2d(conv2d_kernel_for(d), d, d_in, d_filters, d_out, stream);
    }
};

class CudaNaiveBackend final : public StagedGpuBackend {
public:
    std::string_view name() const override { return "cuda-naive"; }
    std::string_view description() const override {
        return "The simplest CUDA convolution: one GPU thread per output pixel, every filter tap read from "
               "global memory; compare with cuda-kernel's shared-memory tiles.";
    }
    bool supports(const core::OpDesc&) const override { return false; }
    std::string conv2d_implementation(const core::Conv2dDesc& d) const override {
        return supports_conv2d(d) ? conv2d_kernel_label(Conv2dKernel::Naive) : "";
    }

protected:
    // Never reached: StagedGpuBackend::run() asks supports() first.
    void compute(const core::OpDesc& op, const float*, float*, int64_t, cudaStream_t) override {
        throw CudaError("cuda-naive does not offer " + op.label());
    }
    std::string conv2d_problem(const core::Conv2dDesc& d) const override { return conv2d_kernel_problem(d); }
    void compute_conv2d(const core::Conv2dDesc& d, const float* d_in, const float* d_filters, float* d_out,
                        cudaStream_t stream) override {
        launch_conv2d(Conv2dKernel::Naive, d, d_in, d_filters, d_out, stream);
    }
};

}  // namespace

}  // namespace gpulab::cuda

namespace gpulab::gpu {

std::unique_ptr<core::Backend> detail::make_cuda_kernel_backend() {
    return std::make_unique<cuda::CudaKernelBackend>();
}

std::unique_ptr<core::Backend> detail::make_cuda_naive_backend() { return std::make_unique<cuda::CudaNaiveBackend>(); }

core::RunResult run_activation_at_offsets(const core::OpDesc& op, const core::Tensor& in, core::Tensor& out,
                                          int in_offset, int out_offset) {
    core::RunResult r;
    if (!probe().device_ok) {
        r.error = probe().reason;
        return r;
    }
    if (in_offset < 0 || out_offset < 0 || in_offset > 64 || out_offset > 64) {
        r.error = "offsets must be 0..64 floats";
        return r;
    }
    if (out.size() != in.size()) {
        r.error = "output has " + std::to_string(out.size()) + " elements, input " + std::to_string(in.size());
        return r;
    }
    try {
        const auto n = static_cast<std::size_t>(in.size());
        cuda::Stream stream;
        // Both start at the 256-byte alignment of cudaMalloc, then move by whole floats.
        cuda::DeviceBuffer<float> d_in(n + static_cast<std::size_t>(in_offset) + 1);
        cuda::DeviceBuffer<float> d_out(n + static_cast<std::size_t>(out_offset) + 1);
        const std::size_t bytes = n * sizeof(float);
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(d_in.data() + in_offset, in.ptr(), bytes, cudaMemcpyHostToDevice,
                                          stream.get()));
        cuda::launch_activation(op, d_in.data() + in_offset, d_out.data() + out_offset, in.size(), stream.get());
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(out.ptr(), d_out.data() + out_offset, bytes, cudaMemcpyDeviceToHost,
                                          stream.get()));
        stream.synchronize();
        r.ok = true;
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    return r;
}

}  // namespace gpulab::gpu
