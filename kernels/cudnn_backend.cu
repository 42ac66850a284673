// Backend "cudnn": NVIDIA's library computing the same activations, for comparison with our kernel.
//
// What it computes: y = act(x) with cudnnActivationForward (alpha = 1, beta = 0) for the three
// activations the call offers: ReLU, sigmoid, tanh. Leaky ReLU and GELU are not modes of
// cudnnActivationForward, so supports() says no and the app shows "not offered by cuDNN".
// (This is cuDNN's legacy API: marked deprecated in cuDNN 9 but fully supported; it is the direct,
// readable counterpart of one kernel launch, which is what the lesson compares.)
//
// Tensor shape: cuDNN tensor dimensions and strides are `int`, so an array is described as a
// packed NCHW tensor (1, 1, 1, c) and processed in chunks of c <= 2^30 elements; 2^30 keeps every
// chunk a multiple of 4 floats (16-byte aligned) and far from INT_MAX. Thread mapping inside cuDNN
// is its own; we only choose the descriptors and the stream.
//
// Timing and staging: StagedGpuBackend (upload | compute | download, CUDA events, one stream).
//
// Verified by tests/test_gpu_backends.cpp: cudnn equals cpu-scalar for relu/sigmoid/tanh at sizes
// 1, 31, 33, 1000, 2^20+7 and 2^26+5, with NaN and infinities, and refuses leaky ReLU and GELU
// through supports().
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "cuda_check.cuh"
#include "gpu_internal.h"
#include "staged_backend.cuh"

namespace gpulab::cuda {

namespace {

constexpr int64_t kChunkElements = int64_t{1} << 30;

std::string format_cudnn_version(std::size_t v) {
    // cuDNN 9 encodes major*10000 + minor*100 + patch; cuDNN 8 used major*1000 + minor*100 + patch.
    const bool v9_style = v >= 90000;
    const std::size_t major = v9_style ? v / 10000 : v / 1000;
    const std::size_t minor = v9_style ? (v % 10000) / 100 : (v % 1000) / 100;
    const std::size_t patch = v % 100;
    return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

class CudnnHandle {
public:
    CudnnHandle() { GPULAB_CUDNN_CHECK(cudnnCreate(&h_)); }
    CudnnHandle(const CudnnHandle&) = delete;
    CudnnHandle& operator=(const CudnnHandle&) = delete;
    ~CudnnHandle() {
        cudnnDestroy(h_);
        cudaGetLastError();
    }
    cudnnHandle_t get() const { return h_; }

private:
    cudnnHandle_t h_ = nullptr;
};

class TensorDesc {
public:
    TensorDesc() { GPULAB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&d_)); }
    TensorDesc(const TensorDesc&) = delete;
    TensorDesc& operator=(const TensorDesc&) = delete;
    ~TensorDesc() { cudnnDestroyTensorDescriptor(d_); }
    cudnnTensorDescriptor_t get() const { return d_; }
    // (1, 1, 1, count), packed; re-set only when the count changes.
    void set_vector(int count) {
        if (count == count_) return;
        GPULAB_CUDNN_CHECK(cudnnSetTensor4dDescriptor(d_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, count));
        count_ = count;
    }

private:
    cudnnTensorDescriptor_t d_ = nullptr;
    int count_ = -1;
};

class ActivationDesc {
public:
    ActivationDesc() { GPULAB_CUDNN_CHECK(cudnnCreateActivationDescriptor(&d_)); }
    ActivationDesc(const ActivationDesc&) = delete;
    ActivationDesc& operator=(const ActivationDesc&) = delete;
    ~ActivationDesc() { cudnnDestroyActivationDescriptor(d_); }
    cudnnActivationDescriptor_t get() const { return d_; }
    // PROPAGATE_NAN: NaN in gives NaN out, the policy of core/hd_math.h. coef is used only by
    // clipped ReLU and ELU; 0 for the modes we use.
    void set_mode(cudnnActivationMode_t mode) {
        if (mode == mode_ && set_) return;
        GPULAB_CUDNN_CHECK(cudnnSetActivationDescriptor(d_, mode, CUDNN_PROPAGATE_NAN, 0.0));
        mode_ = mode;
        set_ = true;
    }

private:
    cudnnActivationDescriptor_t d_ = nullptr;
    cudnnActivationMode_t mode_ = CUDNN_ACTIVATION_RELU;
    bool set_ = false;
};

bool cudnn_mode(core::Activation a, cudnnActivationMode_t& mode) {
    switch (a) {
        case core::Activation::Relu: mode = CUDNN_ACTIVATION_RELU; return true;
        case core::Activation::Sigmoid: mode = CUDNN_ACTIVATION_SIGMOID; return true;
        case core::Activation::Tanh: mode = CUDNN_ACTIVATION_TANH; return true;
        case core::Activation::LeakyRelu:
        case core::Activation::Gelu: return false;
    }
    return false;
}

class CudnnBackend final : public StagedGpuBackend {
public:
    std::string_view name() const override { return "cudnn"; }
    std::string_view description() const override {
        return "NVIDIA's cuDNN library (cudnnActivationForward): the tuned implementation frameworks call; "
               "offers ReLU, sigmoid and tanh.";
    }
    core::Availability availability() const override {
        // The device checks first (no device, or a context lost to a sticky error), then cuDNN's.
        core::Availability av = StagedGpuBackend::availability();
        if (!av.ok) return av;
        const gpu::GpuProbe& p = gpu::probe();
        if (!p.cudnn_ok) return {false, p.cudnn_reason};
        return {true, "cuDNN " + p.cudnn_version + " on " + p.name};
    }
    bool supports(const core::OpDesc& op) const override {
        cudnnActivationMode_t mode{};
        return op.kind == core::OpKind::Activation && cudnn_mode(op.activation, mode);
    }

protected:
    void prepare(cudaStream_t stream) override {
        handle_ = std::make_unique<CudnnHandle>();
        GPULAB_CUDNN_CHECK(cudnnSetStream(handle_->get(), stream));
        x_ = std::make_unique<TensorDesc>();
        act_ = std::make_unique<ActivationDesc>();
    }

    void compute(const core::OpDesc& op, const float* d_in, float* d_out, int64_t n, cudaStream_t) override {
        cudnnActivationMode_t mode{};
        if (!cudnn_mode(op.activation, mode)) throw CudaError("cudnn does not offer " + op.label());
        act_->set_mode(mode);
        const float alpha = 1.0f, beta = 0.0f;
        for (int64_t first = 0; first < n; first += kChunkElements) {
            const int count = static_cast<int>(std::min(kChunkElements, n - first));
            x_->set_vector(count);
            // x and y have the same shape and layout, so one descriptor describes both.
            GPULAB_CUDNN_CHECK(cudnnActivationForward(handle_->get(), act_->get(), &alpha, x_->get(), d_in + first,
                                                      &beta, x_->get(), d_out + first));
        }
    }

private:
    std::unique_ptr<CudnnHandle> handle_;
    std::unique_ptr<TensorDesc> x_;
    std::unique_ptr<ActivationDesc> act_;
};

}  // namespace

}  // namespace gpulab::cuda

namespace gpulab::gpu::detail {

std::unique_ptr<core::Backend> make_cudnn_backend() { return std::make_unique<cuda::CudnnBackend>(); }

void probe_cudnn(GpuProbe& p) {
    p.cudnn_compiled_in = true;
    p.cudnn_version = cuda::format_cudnn_version(cudnnGetVersion());
    if (!p.device_ok) {
        p.cudnn_reason = "no CUDA device (" + p.reason + ")";
        return;
    }
    // cudnnCreate loads cuDNN's sub-libraries and touches the device: the honest test of "works".
    cudnnHandle_t h = nullptr;
    const cudnnStatus_t st = cudnnCreate(&h);
    if (st != CUDNN_STATUS_SUCCESS) {
        char detail[256] = {0};
        cudnnGetLastErrorString(detail, sizeof(detail));
        p.cudnn_reason = std::string("cudnnCreate failed: ") + cudnnGetErrorString(st);
        if (detail[0] != '\0') p.cudnn_reason += std::string(": ") + detail;
        cudaGetLastError();
        return;
    }
    cudnnDestroy(h);
    p.cudnn_ok = true;
    p.cudnn_reason = "cuDNN " + p.cudnn_version + " (built against " + std::to_string(CUDNN_MAJOR) + "." +
                     std::to_string(CUDNN_MINOR) + "." + std::to_string(CUDNN_PATCHLEVEL) + ")";
}

}  // namespace gpulab::gpu::detail
