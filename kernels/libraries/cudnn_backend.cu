// Backend "cudnn": NVIDIA's library computing the same activations and convolutions, for
// comparison with our kernels.
//
// [activations]
// What it computes: y = act(x) with cudnnActivationForward (alpha = 1, beta = 0) for the three of
// the lesson's activations the call offers: ReLU, sigmoid, tanh (it has other modes too, such as
// clipped ReLU, ELU and swish, that the lesson does not use). Leaky ReLU and GELU are not modes of
// cudnnActivationForward, so supports() says no and the app shows "not offered by cuDNN".
// (This is cuDNN's legacy API: marked deprecated in cuDNN 9 but fully supported; it is the direct,
// readable counterpart of one kernel launch, which is what the lesson compares.)
//
// Tensor shape: cuDNN tensor dimensions and strides are `int`, so an array is described as a
// packed NCHW tensor (1, 1, 1, c) and processed in chunks of c <= 2^30 elements; 2^30 keeps every
// chunk a multiple of 4 floats (16-byte aligned) and far from INT_MAX. Thread mapping inside cuDNN
// is its own; we only choose the descriptors and the stream.
//
// [convolution] cudnnConvolutionForward on packed NCHW floats (x: N,C,H,W; w: K,C,R,S; y: N,K,P,Q),
// mode CUDNN_CROSS_CORRELATION (what CNNs and core/ops/conv2d.h compute: the filter is not flipped),
// padding and stride from the Conv2dDesc, dilation 1, compute type float.
//   Math type: CUDNN_FMA_MATH, i.e. plain FP32 fused multiply-adds. CUDNN_DEFAULT_MATH would let
//   cuDNN use TF32 tensor cores on Ampere and newer GPUs: faster, but TF32 keeps only 10 mantissa
//   bits of each input, so results move by ~1e-3 relative and no longer match cpu-scalar within an
//   FP32 tolerance. The lesson compares like with like; the implementation string names the math
//   type that actually ran, in case cuDNN offers no FMA algorithm and the fallback is used.
//   Algorithm: cudnnFindConvolutionForwardAlgorithm times every algorithm once per shape (it runs
//   real convolutions on memory it allocates itself); we keep the fastest that succeeded with FMA
//   math and whose workspace fits in free device memory, cache it per shape, and allocate the
//   workspace to match. The search happens in prepare_conv2d, before the timed phases.
//   A shape no algorithm accepts (NOT_SUPPORTED, allocation failures) becomes one readable error
//   for this run: the backend shows as failed for that shape and the other backends carry on.
//
// Timing and staging: StagedGpuBackend (upload | compute | download, CUDA events, one stream).
//
// Verified by tests/test_gpu_backends.cpp: cudnn equals cpu-scalar for relu/sigmoid/tanh at sizes
// 1, 31, 33, 1000, 2^20+7 and 2^26+5, with NaN and infinities, and refuses leaky ReLU and GELU
// through supports(); by tests/test_gpu_conv2d.cpp: cudnn's convolution equals cpu-scalar for odd
// sizes, kernels 1..7, strides 1 and 2, both paddings, and names its algorithm after a run.
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "conv2d/conv2d.cuh"
#include "cuda/cuda_check.cuh"
#include "cudnn_library.h"
#include "cuda/device_buffer.cuh"
#include "measure/format.h"
#include "gpu_internal.h"
#include "cuda/staged_backend.cuh"

namespace gpulab::cuda {

namespace {

constexpr int64_t kChunkElements = int64_t{1} << 30;

class CudnnHandle {
public:
    CudnnHandle() { GPULAB_CUDNN_CHECK(cudnn_api().cudnnCreate(&h_)); }
    CudnnHandle(const CudnnHandle&) = delete;
    CudnnHandle& operator=(const CudnnHandle&) = delete;
    ~CudnnHandle() {
        cudnn_api().cudnnDestroy(h_);
        cudaGetLastError();
    }
    cudnnHandle_t get() const { return h_; }

private:
    cudnnHandle_t h_ = nullptr;
};

class TensorDesc {
public:
    TensorDesc() { GPULAB_CUDNN_CHECK(cudnn_api().cudnnCreateTensorDescriptor(&d_)); }
    TensorDesc(const TensorDesc&) = delete;
    TensorDesc& operator=(const TensorDesc&) = delete;
    ~TensorDesc() { cudnn_api().cudnnDestroyTensorDescriptor(d_); }
    cudnnTensorDescriptor_t get() const { return d_; }
    // (1, 1, 1, count), packed; re-set only when the count changes.
    void set_vector(int count) {
        if (count == count_) return;
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetTensor4dDescriptor(d_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, 1, count));
        count_ = count;
    }
    // Packed NCHW (convolution tensors).
    void set_nchw(int n, int c, int h, int w) {
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetTensor4dDescriptor(d_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w));
        count_ = -1;
    }

private:
    cudnnTensorDescriptor_t d_ = nullptr;
    int count_ = -1;
};

class FilterDesc {
public:
    FilterDesc() { GPULAB_CUDNN_CHECK(cudnn_api().cudnnCreateFilterDescriptor(&d_)); }
    FilterDesc(const FilterDesc&) = delete;
    FilterDesc& operator=(const FilterDesc&) = delete;
    ~FilterDesc() { cudnn_api().cudnnDestroyFilterDescriptor(d_); }
    cudnnFilterDescriptor_t get() const { return d_; }
    void set_kcrs(int k, int c, int r, int s) {
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetFilter4dDescriptor(d_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, r, s));
    }

private:
    cudnnFilterDescriptor_t d_ = nullptr;
};

class ConvDesc {
public:
    ConvDesc() { GPULAB_CUDNN_CHECK(cudnn_api().cudnnCreateConvolutionDescriptor(&d_)); }
    ConvDesc(const ConvDesc&) = delete;
    ConvDesc& operator=(const ConvDesc&) = delete;
    ~ConvDesc() { cudnn_api().cudnnDestroyConvolutionDescriptor(d_); }
    cudnnConvolutionDescriptor_t get() const { return d_; }

private:
    cudnnConvolutionDescriptor_t d_ = nullptr;
};

const char* algo_name(cudnnConvolutionFwdAlgo_t a) {
    switch (a) {
        case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM";
        case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
            return "CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM";
        case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "CUDNN_CONVOLUTION_FWD_ALGO_GEMM";
        case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "CUDNN_CONVOLUTION_FWD_ALGO_DIRECT";
        case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "CUDNN_CONVOLUTION_FWD_ALGO_FFT";
        case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING";
        case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD";
        case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED";
        case CUDNN_CONVOLUTION_FWD_ALGO_COUNT: break;
    }
    return "unknown cuDNN forward algorithm";
}

const char* math_name(cudnnMathType_t m) {
    switch (m) {
        case CUDNN_FMA_MATH: return "FP32 math (FMA, no TF32)";
        case CUDNN_DEFAULT_MATH: return "default math (TF32 tensor cores allowed on Ampere and newer)";
        case CUDNN_TENSOR_OP_MATH: return "tensor-core math (TF32 for float)";
        case CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION: return "tensor-core math with down-conversion";
    }
    return "unknown math type";
}

// One cache entry per shape: what the search chose.
using ConvKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;

ConvKey key_of(const core::Conv2dDesc& d) {
    return {d.batch, d.channels, d.height, d.width, d.filters, d.kernel, d.pad(), d.stride};
}

struct ConvChoice {
    cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    cudnnMathType_t math = CUDNN_FMA_MATH;
    std::size_t workspace_bytes = 0;
    std::string label;  // what conv2d_implementation shows
};

class ActivationDesc {
public:
    ActivationDesc() { GPULAB_CUDNN_CHECK(cudnn_api().cudnnCreateActivationDescriptor(&d_)); }
    ActivationDesc(const ActivationDesc&) = delete;
    ActivationDesc& operator=(const ActivationDesc&) = delete;
    ~ActivationDesc() { cudnn_api().cudnnDestroyActivationDescriptor(d_); }
    cudnnActivationDescriptor_t get() const { return d_; }
    // PROPAGATE_NAN: NaN in gives NaN out, the policy of core/ops/hd_math.h. coef is used only by
    // clipped ReLU and ELU; 0 for the modes we use.
    void set_mode(cudnnActivationMode_t mode) {
        if (mode == mode_ && set_) return;
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetActivationDescriptor(d_, mode, CUDNN_PROPAGATE_NAN, 0.0));
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
        return "NVIDIA's cuDNN library (cudnnActivationForward, cudnnConvolutionForward): the tuned "
               "implementation frameworks call. Of this lesson's activations it offers ReLU, sigmoid and tanh (its "
               "activation API has a few more modes, none of them GELU or leaky ReLU); and convolution.";
    }
    core::Availability availability() const override {
        // A missing or wrong cuDNN library first (true on any machine), then the device checks (no
        // device, or a context lost to a sticky error), then cuDNN's own.
        const gpu::GpuProbe& p = gpu::probe();
        if (p.cudnn_library_missing) return {false, p.cudnn_reason};
        core::Availability av = StagedGpuBackend::availability();
        if (!av.ok) return av;
        if (!p.cudnn_ok) return {false, p.cudnn_reason};
        return {true, "cuDNN " + p.cudnn_version + " on " + p.name};
    }
    bool supports(const core::OpDesc& op) const override {
        cudnnActivationMode_t mode{};
        return op.kind == core::OpKind::Activation && cudnn_mode(op.activation, mode);
    }
    // Empty until a run of this shape has chosen its algorithm.
    std::string conv2d_implementation(const core::Conv2dDesc& d) const override {
        std::lock_guard<std::mutex> lock(choices_mutex_);
        const auto it = choices_.find(key_of(d));
        return it == choices_.end() ? "" : it->second.label;
    }

protected:
    void prepare(cudaStream_t stream) override {
        handle_ = std::make_unique<CudnnHandle>();
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetStream(handle_->get(), stream));
        x_ = std::make_unique<TensorDesc>();
        act_ = std::make_unique<ActivationDesc>();
        conv_x_ = std::make_unique<TensorDesc>();
        conv_y_ = std::make_unique<TensorDesc>();
        conv_w_ = std::make_unique<FilterDesc>();
        conv_ = std::make_unique<ConvDesc>();
    }

    std::string conv2d_problem(const core::Conv2dDesc& d) const override { return conv2d_shape_problem(d); }

    // Describes the shape to cuDNN, finds (or recalls) the algorithm, sizes the workspace.
    void prepare_conv2d(const core::Conv2dDesc& d, cudaStream_t) override {
        conv_x_->set_nchw(static_cast<int>(d.batch), static_cast<int>(d.channels), static_cast<int>(d.height),
                          static_cast<int>(d.width));
        conv_w_->set_kcrs(static_cast<int>(d.filters), static_cast<int>(d.channels), static_cast<int>(d.kernel),
                          static_cast<int>(d.kernel));
        const int pad = static_cast<int>(d.pad());
        const int stride = static_cast<int>(d.stride);
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetConvolution2dDescriptor(conv_->get(), pad, pad, stride, stride, 1, 1,
                                                           CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetConvolutionMathType(conv_->get(), CUDNN_FMA_MATH));
        int n = 0, k = 0, p = 0, q = 0;
        GPULAB_CUDNN_CHECK(
            cudnn_api().cudnnGetConvolution2dForwardOutputDim(conv_->get(), conv_x_->get(), conv_w_->get(), &n, &k, &p, &q));
        if (n != d.batch || k != d.filters || p != d.out_height() || q != d.out_width()) {
            throw CudaError("cuDNN computes an output of " + std::to_string(n) + "x" + std::to_string(k) + "x" +
                            std::to_string(p) + "x" + std::to_string(q) + " for this shape, gpulab expects " +
                            std::to_string(d.batch) + "x" + std::to_string(d.filters) + "x" +
                            std::to_string(d.out_height()) + "x" + std::to_string(d.out_width()));
        }
        conv_y_->set_nchw(n, k, p, q);

        const ConvKey key = key_of(d);
        bool cached = false;
        {
            std::lock_guard<std::mutex> lock(choices_mutex_);
            const auto it = choices_.find(key);
            if (it != choices_.end()) {
                current_ = it->second;
                cached = true;
            }
        }
        if (!cached) {
            current_ = find_algorithm(d);
            std::lock_guard<std::mutex> lock(choices_mutex_);
            choices_[key] = current_;
        }
        // The chosen result's math type is what cudnnConvolutionForward must be told.
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetConvolutionMathType(conv_->get(), current_.math));
        if (current_.workspace_bytes > workspace_.capacity()) {
            const core::Availability room = device_room(current_.workspace_bytes - workspace_.capacity());
            if (!room.ok) {
                throw CudaError("cuDNN workspace for " + std::string(algo_name(current_.algo)) + ": " + room.reason);
            }
            workspace_.reserve(current_.workspace_bytes);
        }
    }

    void compute_conv2d(const core::Conv2dDesc&, const float* d_in, const float* d_filters, float* d_out,
                        cudaStream_t) override {
        const float alpha = 1.0f, beta = 0.0f;
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnConvolutionForward(handle_->get(), &alpha, conv_x_->get(), d_in, conv_w_->get(),
                                                   d_filters, conv_->get(), current_.algo,
                                                   current_.workspace_bytes > 0 ? workspace_.data() : nullptr,
                                                   current_.workspace_bytes, &beta, conv_y_->get(), d_out));
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
            GPULAB_CUDNN_CHECK(cudnn_api().cudnnActivationForward(handle_->get(), act_->get(), &alpha, x_->get(), d_in + first,
                                                      &beta, x_->get(), d_out + first));
        }
    }

private:
    // cudnnFindConvolutionForwardAlgorithm with the descriptors prepare_conv2d has just set. It
    // returns results fastest first; the first acceptable one wins.
    ConvChoice find_algorithm(const core::Conv2dDesc& d) {
        int max_count = 0;
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnGetConvolutionForwardAlgorithmMaxCount(handle_->get(), &max_count));
        // Two slots per algorithm: Find returns an FMA and a CUDNN_DEFAULT_MATH (TF32 on sm_80+)
        // result for each, fastest first, and the TF32 ones must not crowd out every FMA one.
        std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(2 * std::max(max_count, 1)));
        int returned = 0;
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnFindConvolutionForwardAlgorithm(handle_->get(), conv_x_->get(), conv_w_->get(),
                                                                conv_->get(), conv_y_->get(),
                                                                static_cast<int>(perf.size()), &returned,
                                                                perf.data()));
        perf.resize(static_cast<std::size_t>(std::clamp(returned, 0, static_cast<int>(perf.size()))));

        // Room for a workspace: what is free now plus the workspace we already hold.
        std::size_t free_bytes = 0, total_bytes = 0;
        GPULAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        const double room = 0.9 * static_cast<double>(free_bytes) + static_cast<double>(workspace_.capacity());
        const auto usable = [room](const cudnnConvolutionFwdAlgoPerf_t& p) {
            return p.status == CUDNN_STATUS_SUCCESS && static_cast<double>(p.memory) <= room;
        };
        const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
        for (const auto& p : perf) {
            if (usable(p) && p.mathType == CUDNN_FMA_MATH) {
                best = &p;
                break;
            }
        }
        if (best == nullptr) {
            for (const auto& p : perf) {
                if (usable(p)) {
                    best = &p;
                    break;
                }
            }
        }
        if (best == nullptr) {
            std::string why = "cuDNN has no forward algorithm for N=" + std::to_string(d.batch) +
                              " C=" + std::to_string(d.channels) + " H=" + std::to_string(d.height) +
                              " W=" + std::to_string(d.width) + " K=" + std::to_string(d.filters) +
                              " R=S=" + std::to_string(d.kernel) + " stride=" + std::to_string(d.stride);
            if (perf.empty()) throw CudaError(why + ": the search returned nothing");
            why += ":";
            for (const auto& p : perf) {
                why += std::string(" ") + algo_name(p.algo) + " " +
                       (p.status == CUDNN_STATUS_SUCCESS ? "needs " + core::format_bytes(static_cast<double>(p.memory))
                                                         : std::string(cudnn_api().cudnnGetErrorString(p.status))) +
                       ";";
            }
            why.pop_back();
            throw CudaError(why);
        }
        ConvChoice c;
        c.algo = best->algo;
        c.math = best->mathType;
        c.workspace_bytes = best->memory;
        c.label = std::string(algo_name(c.algo)) + ", " + math_name(c.math) + ", workspace " +
                  core::format_bytes(static_cast<double>(c.workspace_bytes));
        return c;
    }

    std::unique_ptr<CudnnHandle> handle_;
    std::unique_ptr<TensorDesc> x_;
    std::unique_ptr<ActivationDesc> act_;
    std::unique_ptr<TensorDesc> conv_x_, conv_y_;
    std::unique_ptr<FilterDesc> conv_w_;
    std::unique_ptr<ConvDesc> conv_;
    DeviceBuffer<unsigned char> workspace_;
    ConvChoice current_;  // set by prepare_conv2d, used by the compute_conv2d that follows
    mutable std::mutex choices_mutex_;
    std::map<ConvKey, ConvChoice> choices_;
};

}  // namespace

}  // namespace gpulab::cuda

namespace gpulab::gpu::detail {

std::unique_ptr<core::Backend> make_cudnn_backend() { return std::make_unique<cuda::CudnnBackend>(); }

void probe_cudnn(GpuProbe& p) {
    p.cudnn_compiled_in = true;
    // The library first: it is loaded here, on first use, not when the program starts.
    const cuda::CudnnLoad& lib = cuda::load_cudnn();
    if (lib.api == nullptr) {
        p.cudnn_reason = lib.reason;
        p.cudnn_library_missing = true;
        return;
    }
    p.cudnn_version = lib.version;
    if (!p.device_ok) {
        p.cudnn_reason = "no CUDA device (" + p.reason + ")";
        return;
    }
    // cudnnCreate loads cuDNN's sub-libraries and touches the device: the honest test of "works".
    cudnnHandle_t h = nullptr;
    const cudnnStatus_t st = cuda::cudnn_api().cudnnCreate(&h);
    if (st != CUDNN_STATUS_SUCCESS) {
        char detail[256] = {0};
        cuda::cudnn_api().cudnnGetLastErrorString(detail, sizeof(detail));
        p.cudnn_reason = std::string("cudnnCreate failed: ") + cuda::cudnn_api().cudnnGetErrorString(st);
        if (detail[0] != '\0') p.cudnn_reason += std::string(": ") + detail;
        cudaGetLastError();
        return;
    }
    cuda::cudnn_api().cudnnDestroy(h);
    p.cudnn_ok = true;
    p.cudnn_reason = "cuDNN " + p.cudnn_version + " (built against " + std::to_string(CUDNN_MAJOR) + "." +
                     std::to_string(CUDNN_MINOR) + "." + std::to_string(CUDNN_PATCHLEVEL) + ")";
}

}  // namespace gpulab::gpu::detail
