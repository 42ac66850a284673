// The cudnn training engine: see cudnn_train_engine.h. What each layer calls, per batch of n:
//
//   conv     forward  followed by a ReLU layer (every conv of gpulab's models): one
//                     cudnnConvolutionBiasActivationForward, y = ReLU(conv(x) + 0 * z + bias), written
//                     straight into the ReLU layer's output (the ReLU layer then runs nothing forward);
//                     a conv without a ReLU after it, or where cuDNN answers NOT_SUPPORTED for the
//                     fused call: cudnnConvolutionForward, then cudnnAddTensor for the bias (1,K,1,1
//                     broadcast). Why not the fused call with IDENTITY for the former: the
//                     documentation allows IDENTITY only with the IMPLICIT_PRECOMP_GEMM algorithm,
//                     which would override what Find measured fastest.
//            backward cudnnConvolutionBackwardBias, cudnnConvolutionBackwardFilter, and
//                     cudnnConvolutionBackwardData unless it is the first layer
//   relu     cudnnActivationForward (unless fused into the conv before) / cudnnActivationBackward
//            (CUDNN_ACTIVATION_RELU), given the ReLU's output y also as its input x: for ReLU the
//            gradient passes where y > 0, which is exactly where x > 0, so either tensor gives the same
//            dx, and the fused forward never writes the pre-activation
//   pool     cudnnPoolingForward / cudnnPoolingBackward (CUDNN_POOLING_MAX, 2x2, stride 2, no padding:
//            cuDNN's output size 1 + (H - 2) / 2 rounds down, so an odd last row or column is
//            dropped, as Keras and cpu-scalar do)
//   dense    cublasSgemm three ways (cudnn_train_plan.h has the row-major to column-major mapping),
//            cudnnAddTensor / cudnnConvolutionBackwardBias for the bias on an N,out,1,1 view
//   loss     ours: softmax_xent_forward_kernel and softmax_xent_backward_kernel (kernels/train/
//            loss_kernels.cuh), one thread per image; per-image losses and hits come back (2n
//            numbers) and are summed on the host in double
//   update   ours: sgd_momentum_kernel (kernels/train/sgd_kernel.cuh) over the flat parameters
//
// alpha = 1 and beta = 0 everywhere (write, never accumulate), except the bias adds (beta = 1: add
// to what the convolution or gemm just wrote) and the fused call (alpha1 = 1, alpha2 = 0).
//
// Precision (set_compute_precision, before setup). FP32, the default: convolutions ask for
// CUDNN_FMA_MATH (no TF32, so results match cpu-scalar within an FP32 tolerance, as in the
// convolution lesson's cudnn backend); cuBLAS runs in CUBLAS_DEFAULT_MATH, which for sgemm is FP32
// (TF32 only when asked for with CUBLAS_TF32_TENSOR_OP_MATH).
// TF32 (issue 29: what TensorFlow does by default on Ampere, so most likely what the source
// article's RTX 3070 ran), on a GPU of compute capability 8.0 or newer: the convolution descriptors
// start in CUDNN_DEFAULT_MATH, which permits TF32 tensor-core kernels for FP32 data there; Find
// times the algorithms and the fastest that runs, fits and does not convert to FP16 is kept,
// whatever its math type (plan::choose_algorithm with allow_tf32); each direction's descriptor is
// set to its choice's math type. The cuBLAS handle is put in CUBLAS_TF32_TENSOR_OP_MATH, which
// lets the same cublasSgemm calls use TF32 tensor cores. Why the handle's mode and not cublasGemmEx
// with CUBLAS_COMPUTE_32F_FAST_TF32 (the speed step's TF32 row): the three host-tested sgemm
// argument sets stay the one code path for both precisions, and the mode is one checked call per
// setup. Sums, weights and the update stay FP32 either way (our SGD kernel). On an older GPU TF32
// falls back to exactly the FP32 path, and precision() says so. BF16 is refused
// (plan::check_cudnn_precision).
// FP16 mixed (issue 29 part 5: mixed precision as GPUs did it before BF16), on compute capability
// 7.0 or newer (FP16 tensor cores; below that exactly the FP32 path, and precision() says so). Every
// tensor stays FP32 in memory, the weights too (the FP32 master copy); only the products may run in
// FP16. Convolution descriptors start in CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION, which lets cuDNN
// convert FP32 data down to FP16 for the tensor cores; Find times the algorithms and the fastest
// result that converts is kept, else the fastest at all (plan::choose_fp16_algorithm), and each
// direction's descriptor is set to its choice's math type, as for TF32. The fused conv + bias + ReLU
// call takes the forward descriptor, so its math type too. The dense layers call cublasGemmEx with
// FP32 A, B and C and CUBLAS_COMPUTE_32F_FAST_16F (cuBLAS may down-convert the inputs to FP16, or
// to TF32, and sums in FP32): the same three host-tested argument sets as cublasSgemm. Loss scaling,
// the policy of core's LossScaler, kept on the host: the loss gradient (dlogits) is multiplied by
// the scale S on the GPU before the backward pass (our scale_kernel, loss_scale_kernels.cuh); after
// it, our nonfinite_flag_kernel raises one flag when any weight gradient is infinite or NaN, and
// scale_kernel divides the gradients by S (exact: S is a power of two), so gradients() reads the
// true gradients as in every other precision. The flag comes back with the losses (see host waits):
// a raised flag makes step() skip the update and the scaler halve S; 200 good steps double it.
//
// Algorithms: the three cuDNN Find calls time every convolution algorithm for each conv layer and
// batch size once, when that batch size is first seen (setup() does the largest), before any
// timed work; the choice (train_plan::choose_algorithm) and one workspace sized to the largest
// chosen need are kept per batch size. Calls run one after another on one stream, so one workspace
// serves them all.
//
// Timing: CUDA events between layers on the engine's stream, read after the pass; layer_times()
// is GPU time. Uploading the images and reading the loss back lie outside the layer times. With the
// fused forward, a ReLU layer's forward time is inside its conv's.
//
// Host waits: one per training step, at the end of backward(), where the loss must come back
// (issue 30). In FP16 mixed the overflow flag comes back at that same wait (a 4-byte copy queued
// after the gradient check), so FP16 adds no wait of its own; what it does add is that the update
// is decided on the host from that flag, after the whole backward pass has finished, which is where
// the FP32 path also stands when step() is called. The images and labels are copied into page-locked staging buffers (cudaMallocHost)
// and uploaded from there with cudaMemcpyAsync, which is asynchronous only from page-locked
// memory; the per-image losses come back into page-locked memory the same way, queued before the
// backward layers, and are summed after that one wait. forward() and step() queue work and return;
// the forward times are read after the same wait (or by layer_times() when no backward came).
// Before the staging buffers are written again, an event recorded after the last copy from them
// is waited for (usually long complete).
//
// Every call is checked (GPULAB_CUDA_CHECK / GPULAB_CUDNN_CHECK / GPULAB_CUBLAS_CHECK) and throws
// CudaError with the call, place and the library's sentence; the trainer reports it.
#include <cudnn.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "libraries/cublas_library.h"
#include "cuda/cuda_check.cuh"
#include "libraries/cudnn_library.h"
#include "cudnn_train_engine.h"
#include "cudnn_train_plan.h"
#include "train/loss_scaling.h"
#include "cuda/device_buffer.cuh"
#include "measure/format.h"
#include "gpu_backends.h"
#include "io/image_io.h"
#include "cuda/staged_backend.cuh"

// Our loss and update kernels (the cuda-train branch's), compiled here by nvcc: the device
// environment first, then the kernel headers, launch shapes from the same functions cuda-kernel
// and the simulator use.
#include "cuda/cuda_device_env.cuh"
#include "loss_kernels.cuh"
#include "loss_scale_kernels.cuh"
#include "sgd_kernel.cuh"
#include "train_launch.h"

namespace gpulab::cuda {

namespace {

using train::Layer;
using train::LayerKind;
namespace plan = train_plan;

// A cuDNN descriptor or handle, destroyed with the function it was created for.
template <class T>
class Owned {
public:
    using Destroy = cudnnStatus_t (*)(T);
    Owned() = default;
    Owned(const Owned&) = delete;
    Owned& operator=(const Owned&) = delete;
    Owned(Owned&& o) noexcept : d_(o.d_), destroy_(o.destroy_) { o.d_ = nullptr; }
    Owned& operator=(Owned&& o) noexcept {
        if (this != &o) {
            if (d_ != nullptr) destroy_(d_);
            d_ = std::exchange(o.d_, nullptr);
            destroy_ = o.destroy_;
        }
        return *this;
    }
    ~Owned() {
        if (d_ != nullptr) destroy_(d_);
    }
    template <class Create>
    void create(Create c, Destroy destroy) {
        reset();
        destroy_ = destroy;
        GPULAB_CUDNN_CHECK(c(&d_));
    }
    void reset() {
        if (d_ != nullptr) destroy_(d_);
        d_ = nullptr;
    }
    T get() const { return d_; }

private:
    T d_ = nullptr;
    Destroy destroy_ = nullptr;
};

// ok when `need` more bytes fit in 90 % of the device memory cudaMemGetInfo reports free: the rule
// of StagedGpuBackend::device_room, which is protected there.
core::Availability device_room(std::size_t need) {
    std::size_t free_bytes = 0, total_bytes = 0;
    GPULAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (static_cast<double>(need) <= 0.9 * static_cast<double>(free_bytes)) return {true, ""};
    return {false, "needs " + core::format_bytes(static_cast<double>(need)) + " of GPU memory but only " +
                       core::format_bytes(static_cast<double>(free_bytes)) + " of " +
                       core::format_bytes(static_cast<double>(total_bytes)) + " is free"};
}

Owned<cudnnTensorDescriptor_t> tensor(const plan::Dims4& d) {
    Owned<cudnnTensorDescriptor_t> t;
    t.create(cudnn_api().cudnnCreateTensorDescriptor, cudnn_api().cudnnDestroyTensorDescriptor);
    GPULAB_CUDNN_CHECK(
        cudnn_api().cudnnSetTensor4dDescriptor(t.get(), CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, d.n, d.c, d.h, d.w));
    return t;
}

const char* fwd_name(int a) {
    static const char* names[] = {"implicit GEMM", "implicit precomputed GEMM", "GEMM", "direct",
                                  "FFT", "FFT tiling", "Winograd", "Winograd non-fused"};
    return a >= 0 && a < 8 ? names[a] : "?";
}
const char* bwd_data_name(int a) {
    static const char* names[] = {"algo 0", "algo 1", "FFT", "FFT tiling", "Winograd", "Winograd non-fused"};
    return a >= 0 && a < 6 ? names[a] : "?";
}
const char* bwd_filter_name(int a) {
    static const char* names[] = {"algo 0", "algo 1", "FFT", "algo 3", "Winograd", "Winograd non-fused", "FFT tiling"};
    return a >= 0 && a < 7 ? names[a] : "?";
}

// One Find call's results without cuDNN's perf struct type (all three have these fields).
template <class Perf>
std::vector<plan::AlgoResult> results_of(const std::vector<Perf>& perf) {
    std::vector<plan::AlgoResult> out;
    for (const Perf& p : perf)
        out.push_back({static_cast<int>(p.algo), p.status == CUDNN_STATUS_SUCCESS, p.mathType == CUDNN_FMA_MATH,
                       p.determinism == CUDNN_DETERMINISTIC, p.memory, p.time,
                       p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION});
    return out;
}

struct Choice {
    int algo = 0;
    cudnnMathType_t math = CUDNN_FMA_MATH;
    std::size_t workspace = 0;
    bool deterministic = true;  // false: atomics, so the last bits of a sum vary from run to run
};

// A convolution descriptor for one direction: valid 3x3 (no padding), stride 1, cross-correlation,
// FP32, with the math type of the algorithm chosen for that direction.
struct ConvDirection {
    Owned<cudnnConvolutionDescriptor_t> desc;
    Choice choice;
};

// One layer's descriptors for one batch size.
struct LayerState {
    Owned<cudnnTensorDescriptor_t> x, y, bias;
    Owned<cudnnFilterDescriptor_t> w;
    ConvDirection fwd, bwd_data, bwd_filter;
};

struct Net {
    std::vector<LayerState> layers;
    std::size_t workspace = 0;  // the largest chosen algorithm's need
    std::string algorithms;     // per conv layer, for implementation()
    bool tf32_possible = false; // a direction's chosen algorithm runs without FMA math
    int directions = 0;         // convolution directions that run (backward-data only where needed)
    int tf32_directions = 0;    // of those, the ones whose chosen math type is not FMA
    int fp16_directions = 0;    // FP16 mixed: of those, the ones whose choice converts FP32 data to FP16
};

class CudnnTrainEngine final : public train::TrainEngine {
public:
    std::string_view name() const override { return "cudnn"; }
    core::BackendKind kind() const override { return core::BackendKind::Gpu; }
    std::string_view description() const override {
        return "NVIDIA's libraries: cuDNN convolutions, pooling and ReLU, cuBLAS matrix products";
    }
    core::Availability availability() const override {
        // A missing library first (true on any machine, GPU or not), then the device, then cuDNN's
        // own start-up.
        const gpu::GpuProbe& p = gpu::probe();
        if (p.cudnn_library_missing) return {false, p.cudnn_reason};
        const CublasLoad& b = load_cublas();
        if (b.api == nullptr) return {false, b.reason};
        if (!p.device_ok) return {false, p.reason};
        if (std::string lost = context_lost_reason(); !lost.empty()) return {false, lost};
        if (!p.cudnn_ok) return {false, p.cudnn_reason};
        return {true, "cuDNN " + p.cudnn_version + " and cuBLAS " + b.version + " on " + p.name};
    }
    std::string implementation() const override { return implementation_; }
    // FP16 mixed: written when asked, so it carries the loss scale and the updates skipped so far.
    std::string precision() const override {
        if (asked_ != train::ComputePrecision::Fp16Mixed) return precision_;
        return plan::fp16_precision_text(cc_major_, cc_minor_, fp16_net_.directions, fp16_net_.fp16_directions, scaler_);
    }
    // FP32, TF32 or FP16 mixed for the following setup(); BF16 refused with a sentence. Until setup
    // the text says only what was asked for: whether the GPU can do TF32 or FP16 is read there.
    // FP16 mixed's loss scale: 0 dynamic (the default), else that power of two, kept (core's check).
    void set_loss_scale(float fixed_scale) override { fixed_loss_scale_ = train::check_loss_scale(fixed_scale); }
    void set_compute_precision(train::ComputePrecision p) override {
        plan::check_cudnn_precision(p);
        asked_ = p;
        precision_ = p == train::ComputePrecision::Tf32 ? plan::tf32_precision_text(-1, 0, 0, 0) : kFp32Text;
        cc_major_ = -1;
        cc_minor_ = 0;
        scaler_ = {};
        fp16_net_ = {};
    }

    void setup(const train::ModelDesc& model, const std::vector<float>& params, std::int64_t max_batch) override {
        train::check_setup_arguments(model, params, max_batch);
        plan::describe_layers(model, max_batch);  // refuses a batch beyond cuDNN's int sizes
        const core::Availability av = availability();
        if (!av.ok) throw core::InputError("cudnn is not available: " + av.reason);
        model_ = model;
        max_batch_ = max_batch;
        n_ = 0;
        nets_.clear();
        open_handles();
        // TF32 only where the tensor cores take it (compute capability 8.0+); elsewhere the FP32 path
        // exactly, so the math type and mode asked for are the ones that run.
        const gpu::GpuProbe& device = gpu::probe();
        tf32_ = asked_ == train::ComputePrecision::Tf32 && plan::has_tf32_tensor_cores(device.cc_major);
        // FP16 likewise only where the tensor cores take FP16 (7.0+). The handle stays in default
        // math: the dense layers' cublasGemmEx names its compute type itself.
        fp16_ = asked_ == train::ComputePrecision::Fp16Mixed && plan::has_fp16_tensor_cores(device.cc_major);
        cc_major_ = device.cc_major;
        cc_minor_ = device.cc_minor;
        // Every setup starts a new training run: at 2^16 (or the fixed scale asked for), nothing skipped.
        scaler_ = {};
        if (fixed_loss_scale_ > 0.0f) {
            scaler_.scale = fixed_loss_scale_;
            scaler_.dynamic = false;
        }
        fp16_net_ = {};
        grads_finite_ = true;
        GPULAB_CUBLAS_CHECK(cublas_api().cublasSetMathMode(cublas_, tf32_ ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
        allocate(params);
        times_.assign(model_.layers.size(), {});
        fwd_marks_.clear();
        bwd_marks_.clear();
        loss_marks_[0] = std::make_unique<Event>();
        loss_marks_[1] = std::make_unique<Event>();
        staging_free_ = std::make_unique<Event>();
        forward_times_pending_ = false;
        fusion_refused_ = false;
        fuse_relu_.assign(model_.layers.size(), 0);
        for (std::size_t i = 0; i + 1 < model_.layers.size(); ++i)
            fuse_relu_[i] = model_.layers[i].kind == LayerKind::Conv && model_.layers[i + 1].kind == LayerKind::Relu;
        for (std::size_t i = 0; i <= model_.layers.size(); ++i) {
            fwd_marks_.push_back(std::make_unique<Event>());
            bwd_marks_.push_back(std::make_unique<Event>());
        }
        net(max_batch);
    }

    void forward(const float* images, std::int64_t n) override  try {
        if (n < 1 || n > max_batch_)
            throw core::InputError("a batch of " + std::to_string(n) + " images does not fit the engine's " +
                                   std::to_string(max_batch_));
        Net& nt = net(n);  // new batch size: the Find calls run here, before the timed part
        n_ = n;
        const cudaStream_t s = stream_->get();
        const std::size_t image_floats = static_cast<std::size_t>(n * model_.input.size());
        staging_free_->synchronize();  // the last copy out of the staging buffers is done
        std::memcpy(staged_images_.data(), images, image_floats * sizeof(float));
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(input_.data(), staged_images_.data(), image_floats * sizeof(float),
                                          cudaMemcpyHostToDevice, s));
        staging_free_->record(s);
        const float one = 1.0f, zero = 0.0f;
        const cudnnHandle_t h = cudnn_;
        fwd_marks_[0]->record(s);
        for (std::size_t i = 0; i < model_.layers.size(); ++i) {
            const Layer& l = model_.layers[i];
            LayerState& st = nt.layers[i];
            const float* x = layer_input(i);
            float* y = outputs_[i].data();
            switch (l.kind) {
                case LayerKind::Conv:
                    if (fuse_relu_[i] && conv_bias_relu(st, l, x, y, outputs_[i + 1].data())) break;
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnConvolutionForward(
                        h, &one, st.x.get(), x, st.w.get(), weights(l), st.fwd.desc.get(),
                        static_cast<cudnnConvolutionFwdAlgo_t>(st.fwd.choice.algo), workspace_.data(),
                        st.fwd.choice.workspace, &zero, st.y.get(), y));
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnAddTensor(h, &one, st.bias.get(), biases(l), &one, st.y.get(), y));
                    break;
                case LayerKind::Relu:
                    if (i > 0 && fuse_relu_[i - 1]) break;  // written by the conv before, fused
                    GPULAB_CUDNN_CHECK(
                        cudnn_api().cudnnActivationForward(h, relu_.get(), &one, st.x.get(), x, &zero, st.y.get(), y));
                    break;
                case LayerKind::MaxPool:
                    GPULAB_CUDNN_CHECK(
                        cudnn_api().cudnnPoolingForward(h, pool_.get(), &one, st.x.get(), x, &zero, st.y.get(), y));
                    break;
                case LayerKind::Dense:
                    gemm(plan::dense_forward(n, l.in.size(), l.out.c), weights(l), x, y);
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnAddTensor(h, &one, st.bias.get(), biases(l), &one, st.y.get(), y));
                    break;
            }
            fwd_marks_[i + 1]->record(s);
        }
        forward_times_pending_ = true;  // read after backward's wait, or by layer_times()
    } catch (const std::exception& e) {
        note_failure(e);
        throw;
    }

    train::BatchResult backward(const std::uint8_t* labels) override  try {
        if (n_ == 0) throw core::InputError("backward needs a forward pass first");
        for (std::int64_t m = 0; m < n_; ++m)
            if (labels[m] >= model_.classes)
                throw core::InputError("label " + std::to_string(labels[m]) + " is not one of the model's " +
                                       std::to_string(model_.classes) + " classes");
        queue_loss(labels);
        Net& nt = net(n_);
        const cudaStream_t s = stream_->get();
        const float one = 1.0f, zero = 0.0f;
        const cudnnHandle_t h = cudnn_;
        const float* dy = dlogits_.data();
        float* dx = grad_a_.data();
        bwd_marks_[model_.layers.size()]->record(s);
        for (std::size_t i = model_.layers.size(); i-- > 0;) {
            const Layer& l = model_.layers[i];
            LayerState& st = nt.layers[i];
            const float* x = layer_input(i);
            const float* y = outputs_[i].data();
            switch (l.kind) {
                case LayerKind::Conv:
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnConvolutionBackwardBias(h, &one, st.y.get(), dy, &zero,
                                                                                st.bias.get(), grad_biases(l)));
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnConvolutionBackwardFilter(
                        h, &one, st.x.get(), x, st.y.get(), dy, st.bwd_filter.desc.get(),
                        static_cast<cudnnConvolutionBwdFilterAlgo_t>(st.bwd_filter.choice.algo), workspace_.data(),
                        st.bwd_filter.choice.workspace, &zero, st.w.get(), grad_weights(l)));
                    if (l.needs_input_gradient)
                        GPULAB_CUDNN_CHECK(cudnn_api().cudnnConvolutionBackwardData(
                            h, &one, st.w.get(), weights(l), st.y.get(), dy, st.bwd_data.desc.get(),
                            static_cast<cudnnConvolutionBwdDataAlgo_t>(st.bwd_data.choice.algo), workspace_.data(),
                            st.bwd_data.choice.workspace, &zero, st.x.get(), dx));
                    break;
                case LayerKind::Relu:
                    // y given as x too (file comment): the fused forward keeps no pre-activation.
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnActivationBackward(h, relu_.get(), &one, st.y.get(), y,
                                                                           st.y.get(), dy, st.x.get(), y, &zero,
                                                                           st.x.get(), dx));
                    break;
                case LayerKind::MaxPool:
                    // With an even height and width every input lies in exactly one window, so the
                    // backward call computes every element of dx and, with beta = 0, overwrites it
                    // (cuDNN's blend dx = alpha * result + beta * dx, the prior value not read).
                    // An odd height or width leaves a last row or column in no window, and whether
                    // cudnnPoolingBackward writes those is not documented: cleared first there only.
                    if (l.in.h % 2 != 0 || l.in.w % 2 != 0)
                        GPULAB_CUDA_CHECK(
                            cudaMemsetAsync(dx, 0, static_cast<std::size_t>(n_ * l.in.size()) * sizeof(float), s));
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnPoolingBackward(h, pool_.get(), &one, st.y.get(), y, st.y.get(),
                                                                        dy, st.x.get(), x, &zero, st.x.get(), dx));
                    break;
                case LayerKind::Dense:
                    gemm(plan::dense_backward_weights(n_, l.in.size(), l.out.c), x, dy, grad_weights(l));
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnConvolutionBackwardBias(h, &one, st.y.get(), dy, &zero,
                                                                                st.bias.get(), grad_biases(l)));
                    if (l.needs_input_gradient) gemm(plan::dense_backward_data(n_, l.in.size(), l.out.c), weights(l), dy, dx);
                    break;
            }
            bwd_marks_[i]->record(s);
            // This layer's input gradient is the upstream gradient of the one before.
            dy = dx;
            dx = dx == grad_a_.data() ? grad_b_.data() : grad_a_.data();
        }
        if (fp16_) {
            // FP16 mixed: did any scaled weight gradient overflow (infinity or NaN)? One flag, cleared
            // and then raised by any thread that finds one; then the gradients divided by the scale
            // (an overflowed one stays infinite or NaN: that batch is not applied anyway). These two
            // kernels lie outside the layer times. The flag's 4-byte copy back is queued here and
            // read after the wait below, the step's one wait, so it costs no wait of its own.
            const auto count = static_cast<std::int64_t>(count_);
            GPULAB_CUDA_CHECK(cudaMemsetAsync(nonfinite_.data(), 0, sizeof(int), s));
            launch(kern::elementwise_launch(count), kern::nonfinite_flag_kernel, static_cast<const float*>(grads_.data()),
                   count, nonfinite_.data());
            launch(kern::elementwise_launch(count), kern::scale_kernel, grads_.data(), count, 1.0f / backward_scale_);
            GPULAB_CUDA_CHECK(
                cudaMemcpyAsync(staged_flag_.data(), nonfinite_.data(), sizeof(int), cudaMemcpyDeviceToHost, s));
            stream_->synchronize();  // the step's one wait: the loss, every layer's events and the flag
            grads_finite_ = staged_flag_.data()[0] == 0;
        } else {
            // The step's one wait: the loss came back into staging_ memory, every layer's events are done.
            bwd_marks_.front()->synchronize();
        }
        read_forward_times();
        read_backward_times();
        return sum_losses();
    } catch (const std::exception& e) {
        note_failure(e);
        throw;
    }

    void step(const train::Sgd& sgd) override  try {
        if (count_ == 0) throw core::InputError("step needs setup first");
        // FP16 mixed: a batch whose scaled gradients overflowed is not applied; the scaler halves
        // the scale (or doubles it after a run of good steps) either way, as LossScaler says.
        if (fp16_ && !scaler_.after_backward(grads_finite_)) return;
        launch(kern::elementwise_launch(static_cast<std::int64_t>(count_)), kern::sgd_momentum_kernel, params_.data(),
               velocity_.data(), static_cast<const float*>(grads_.data()), static_cast<std::int64_t>(count_),
               sgd.learning_rate, sgd.momentum);
        // No wait: the next forward's work is queued behind the update on the same stream, and
        // params() waits in its read-back.
    } catch (const std::exception& e) {
        note_failure(e);
        throw;
    }

    std::vector<float> logits() const override {
        return download(outputs_.back(), static_cast<std::size_t>(n_ * model_.classes));
    }
    // In the host's packed layout (the device's is padded: plan::DeviceParams).
    std::vector<float> gradients() const override { return layout_.gather(download(grads_, count_)); }
    std::vector<float> params() const override { return layout_.gather(download(params_, count_)); }
    std::vector<train::LayerTime> layer_times() const override {
        read_forward_times();  // a forward with no backward after it (evaluation)
        return times_;
    }

private:
    // Every handle and descriptor the engine keeps, made once. A failure part-way (cudnnCreate or
    // cublasCreate on a device that is gone, say) leaves handles_ready_ false, and the next setup
    // starts again from nothing; testing the stream alone, as before, skipped the handles that were
    // never made (issue 30, item 5).
    void open_handles() {
        if (handles_ready_) return;
        close_handles();
        stream_ = std::make_unique<Stream>();
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnCreate(&cudnn_));
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetStream(cudnn_, stream_->get()));
        GPULAB_CUBLAS_CHECK(cublas_api().cublasCreate_v2(&cublas_));
        GPULAB_CUBLAS_CHECK(cublas_api().cublasSetStream_v2(cublas_, stream_->get()));
        GPULAB_CUBLAS_CHECK(cublas_api().cublasSetMathMode(cublas_, CUBLAS_DEFAULT_MATH));
        relu_.create(cudnn_api().cudnnCreateActivationDescriptor, cudnn_api().cudnnDestroyActivationDescriptor);
        // NaN propagates, as in the activation lesson; coef is only read by clipped ReLU and ELU.
        GPULAB_CUDNN_CHECK(
            cudnn_api().cudnnSetActivationDescriptor(relu_.get(), CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
        pool_.create(cudnn_api().cudnnCreatePoolingDescriptor, cudnn_api().cudnnDestroyPoolingDescriptor);
        GPULAB_CUDNN_CHECK(
            cudnn_api().cudnnSetPooling2dDescriptor(pool_.get(), CUDNN_POOLING_MAX, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
        handles_ready_ = true;
    }

    // A failure part-way: a sticky error (an illegal address) poisons the context for every GPU user
    // in the process; recorded there, so each of them says so (issue 30, item 5).
    void note_failure(const std::exception& e) const noexcept {
        try {
            if (stream_) note_if_context_lost(stream_->get(), e.what());
        } catch (...) {
            // no memory for the text: the failure itself is still reported by the caller
        }
    }

    // What a failed open_handles made: descriptors, then handles, then the stream they are bound to.
    void close_handles() {
        relu_.reset();
        pool_.reset();
        if (cublas_ != nullptr && load_cublas().api != nullptr) load_cublas().api->cublasDestroy_v2(cublas_);
        if (cudnn_ != nullptr && load_cudnn().api != nullptr) load_cudnn().api->cudnnDestroy(cudnn_);
        cublas_ = nullptr;
        cudnn_ = nullptr;
        stream_.reset();
        cudaGetLastError();  // a failed create may leave an error behind; it is reported by the retry
    }

    // Every buffer for batches up to max_batch_, after checking they fit in free device memory.
    void allocate(const std::vector<float>& params) {
        layout_ = plan::device_params(model_);
        count_ = static_cast<std::size_t>(layout_.count);
        const auto act = static_cast<std::size_t>(max_batch_ * model_.max_activation());
        // Parameters, gradients, momentum; images; two gradient buffers; dlogits; per-image loss and
        // hit (an int: counted as a float) and the labels (bytes, rounded up to floats).
        // Plus one int (counted as a float): FP16 mixed's overflow flag.
        std::size_t floats = 3 * count_ + static_cast<std::size_t>(max_batch_ * model_.input.size()) + 2 * act +
                             static_cast<std::size_t>(max_batch_ * (model_.classes + 3)) + 1;
        for (const Layer& l : model_.layers) floats += static_cast<std::size_t>(max_batch_ * l.out.size());
        std::size_t held = params_.capacity_bytes() + grads_.capacity_bytes() + velocity_.capacity_bytes() +
                           input_.capacity_bytes() + grad_a_.capacity_bytes() + grad_b_.capacity_bytes() +
                           dlogits_.capacity_bytes() + losses_.capacity_bytes() + labels_.capacity_bytes() +
                           hits_.capacity_bytes() + nonfinite_.capacity_bytes();
        for (const auto& o : outputs_) held += o.capacity_bytes();
        const std::size_t need = floats * sizeof(float);
        const core::Availability room = device_room(need > held ? need - held : 0);
        if (!room.ok)
            throw core::InputError("a batch of " + std::to_string(max_batch_) + " does not fit on the GPU: it " +
                                   room.reason + "; choose a smaller batch");
        params_.reserve(count_);
        grads_.reserve(count_);
        velocity_.reserve(count_);
        input_.reserve(static_cast<std::size_t>(max_batch_ * model_.input.size()));
        outputs_.resize(model_.layers.size());
        for (std::size_t i = 0; i < model_.layers.size(); ++i)
            outputs_[i].reserve(static_cast<std::size_t>(max_batch_ * model_.layers[i].out.size()));
        grad_a_.reserve(act);
        grad_b_.reserve(act);
        dlogits_.reserve(static_cast<std::size_t>(max_batch_ * model_.classes));
        losses_.reserve(static_cast<std::size_t>(max_batch_));
        hits_.reserve(static_cast<std::size_t>(max_batch_));
        labels_.reserve(static_cast<std::size_t>(max_batch_));
        nonfinite_.reserve(1);
        staged_flag_.reserve(1);
        staged_images_.reserve(static_cast<std::size_t>(max_batch_ * model_.input.size()));
        staged_labels_.reserve(static_cast<std::size_t>(max_batch_));
        staged_losses_.reserve(static_cast<std::size_t>(max_batch_));
        staged_hits_.reserve(static_cast<std::size_t>(max_batch_));
        // Zeroed once: a fused conv's own output is the z of cudnnConvolutionBiasActivationForward
        // (multiplied by 0, so it must hold no NaN) and is never written while fused.
        for (std::size_t i = 0; i < outputs_.size(); ++i)
            GPULAB_CUDA_CHECK(cudaMemsetAsync(outputs_[i].data(), 0, outputs_[i].capacity_bytes(), stream_->get()));
        upload(params_, layout_.scatter(params));
        GPULAB_CUDA_CHECK(cudaMemsetAsync(grads_.data(), 0, count_ * sizeof(float), stream_->get()));
        GPULAB_CUDA_CHECK(cudaMemsetAsync(velocity_.data(), 0, count_ * sizeof(float), stream_->get()));
        stream_->synchronize();
    }

    // The descriptors and algorithms for batches of n, made on first use.
    Net& net(std::int64_t n) {
        if (auto it = nets_.find(n); it != nets_.end()) return it->second;
        const std::vector<plan::LayerDescs> descs = plan::describe_layers(model_, n);
        Net nt;
        for (std::size_t i = 0; i < model_.layers.size(); ++i) {
            const Layer& l = model_.layers[i];
            const plan::LayerDescs& d = descs[i];
            LayerState st;
            st.x = tensor(d.x);
            st.y = tensor(d.y);
            if (l.has_params()) st.bias = tensor(d.bias);
            if (l.kind == LayerKind::Conv) {
                st.w.create(cudnn_api().cudnnCreateFilterDescriptor, cudnn_api().cudnnDestroyFilterDescriptor);
                GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetFilter4dDescriptor(st.w.get(), CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                                                          d.filter.n, d.filter.c, d.filter.h, d.filter.w));
                for (ConvDirection* c : {&st.fwd, &st.bwd_data, &st.bwd_filter}) {
                    c->desc.create(cudnn_api().cudnnCreateConvolutionDescriptor,
                                   cudnn_api().cudnnDestroyConvolutionDescriptor);
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetConvolution2dDescriptor(
                        c->desc.get(), 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
                    // Find times in this math type (and in default math): FMA keeps TF32 out; default
                    // math permits it on sm_80+; ALLOW_CONVERSION lets cuDNN convert FP32 data to
                    // FP16 for the tensor cores (FP16 mixed).
                    GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetConvolutionMathType(
                        c->desc.get(), fp16_   ? CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION
                                       : tf32_ ? CUDNN_DEFAULT_MATH
                                               : CUDNN_FMA_MATH));
                }
                check_conv_output(st, d, l);
                find_algorithms(st, l, n, nt);
            } else if (l.kind == LayerKind::MaxPool) {
                int on = 0, oc = 0, oh = 0, ow = 0;
                GPULAB_CUDNN_CHECK(
                    cudnn_api().cudnnGetPooling2dForwardOutputDim(pool_.get(), st.x.get(), &on, &oc, &oh, &ow));
                if (plan::Dims4{on, oc, oh, ow} != d.y)
                    throw CudaError("cuDNN pools " + l.name + " to " + std::to_string(oh) + "x" + std::to_string(ow) +
                                    ", gpulab expects " + std::to_string(d.y.h) + "x" + std::to_string(d.y.w));
            }
            nt.layers.push_back(std::move(st));
        }
        if (nt.workspace > workspace_.capacity()) {
            const core::Availability room = device_room(nt.workspace - workspace_.capacity());
            if (!room.ok) throw CudaError("cuDNN workspace: " + room.reason);
            workspace_.reserve(nt.workspace);
        }
        if (asked_ == train::ComputePrecision::Tf32)
            precision_ = plan::tf32_precision_text(gpu::probe().cc_major, gpu::probe().cc_minor, nt.directions,
                                                   nt.tf32_directions);
        else if (asked_ == train::ComputePrecision::Fp16Mixed)
            fp16_net_ = Fp16Net{nt.directions, nt.fp16_directions};  // precision() writes the text when asked
        else
            precision_ = nt.tf32_possible ? "FP32; TF32 possible in a convolution" : kFp32Text;
        algorithms_ = nt.algorithms;
        describe();
        return nets_.emplace(n, std::move(nt)).first->second;
    }

    // implementation(): the libraries, each conv layer's algorithms and whether bias and ReLU run
    // fused into the convolution.
    void describe() {
        const bool fused = std::any_of(fuse_relu_.begin(), fuse_relu_.end(), [](char f) { return f != 0; });
        implementation_ = "cuDNN " + gpu::probe().cudnn_version + " (" + algorithms_ + "; " +
                          (fused ? "bias and ReLU fused into each convolution (cudnnConvolutionBiasActivationForward)"
                           : fusion_refused_ ? "bias and ReLU as separate calls: cuDNN refused the fused call here"
                                             : "bias and ReLU as separate calls") +
                          "), cuBLAS " + load_cublas().version +
                          (fp16_   ? " cublasGemmEx (FP32 data, CUBLAS_COMPUTE_32F_FAST_16F: FP16 compute permitted) for "
                                     "dense layers"
                           : tf32_ ? " sgemm (TF32 tensor-op math permitted) for dense layers"
                                   : " sgemm (FP32) for dense layers") +
                          (fp16_ ? "; loss, loss scaling (scale, overflow flag) and SGD update: our kernels"
                                 : "; loss and SGD update: our kernels");
    }

    void check_conv_output(const LayerState& st, const plan::LayerDescs& d, const Layer& l) const {
        int n = 0, k = 0, p = 0, q = 0;
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnGetConvolution2dForwardOutputDim(st.fwd.desc.get(), st.x.get(), st.w.get(),
                                                                             &n, &k, &p, &q));
        if (plan::Dims4{n, k, p, q} != d.y)
            throw CudaError("cuDNN computes " + l.name + "'s output as " + std::to_string(n) + "x" + std::to_string(k) +
                            "x" + std::to_string(p) + "x" + std::to_string(q) + ", gpulab expects " +
                            std::to_string(d.y.n) + "x" + std::to_string(d.y.c) + "x" + std::to_string(d.y.h) + "x" +
                            std::to_string(d.y.w));
    }

    // Room for a workspace: 90 % of what is free now, plus the workspace we already hold.
    std::size_t workspace_room() const {
        std::size_t free_bytes = 0, total_bytes = 0;
        GPULAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        return static_cast<std::size_t>(0.9 * static_cast<double>(free_bytes)) + workspace_.capacity();
    }

    template <class Perf>
    Choice choose(const std::vector<Perf>& perf, int returned, const Layer& l, const char* direction,
                  const char* (*name)(int), std::int64_t n) {
        std::vector<Perf> got(perf.begin(), perf.begin() + std::clamp(returned, 0, static_cast<int>(perf.size())));
        const int pick = fp16_ ? plan::choose_fp16_algorithm(results_of(got), workspace_room())
                               : plan::choose_algorithm(results_of(got), workspace_room(), tf32_);
        if (pick < 0) {
            std::string why = "cuDNN has no " + std::string(direction) + " algorithm for " + l.name + " at batch " +
                              std::to_string(n) + " that runs and fits in GPU memory:";
            for (const Perf& p : got)
                why += std::string(" ") + name(static_cast<int>(p.algo)) + " " +
                       (p.status == CUDNN_STATUS_SUCCESS ? "needs " + core::format_bytes(static_cast<double>(p.memory))
                                                         : std::string(cudnn_api().cudnnGetErrorString(p.status))) +
                       ";";
            throw CudaError(why);
        }
        const Perf& p = got[static_cast<std::size_t>(pick)];
        return {static_cast<int>(p.algo), p.mathType, p.memory, p.determinism == CUDNN_DETERMINISTIC};
    }

    // The three Find calls for one conv layer (each times every algorithm on memory it allocates
    // itself), the choices, and each direction's descriptor set to its choice's math type.
    // Room for two results per algorithm: Find times each algorithm in the descriptor's math type
    // (FMA) and in CUDNN_DEFAULT_MATH, which lets TF32 run on sm_80+, and returns them as separate
    // results, fastest first; with one slot per algorithm the faster TF32 ones could take every slot
    // and leave no FMA result to choose (issue 30, item 1; Caffe2 doubles its counts for the same
    // reason). choose_algorithm then keeps the fastest FMA one.
    // FP16 mixed: four per algorithm, one per cudnnMathType_t value, since Find may return an
    // algorithm in the converting math type besides the others; fewer slots could drop the
    // converting results the rule looks for.
    std::size_t find_slots(int max_count) const {
        return static_cast<std::size_t>((fp16_ ? 4 : 2) * std::max(max_count, 1));
    }

    void find_algorithms(LayerState& st, const Layer& l, std::int64_t n, Net& nt) {
        const cudnnHandle_t h = cudnn_;
        int max_count = 0, returned = 0;
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_count));
        std::vector<cudnnConvolutionFwdAlgoPerf_t> fwd(find_slots(max_count));
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnFindConvolutionForwardAlgorithm(
            h, st.x.get(), st.w.get(), st.fwd.desc.get(), st.y.get(), static_cast<int>(fwd.size()), &returned, fwd.data()));
        st.fwd.choice = choose(fwd, returned, l, "forward", fwd_name, n);

        GPULAB_CUDNN_CHECK(cudnn_api().cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h, &max_count));
        std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> bf(find_slots(max_count));
        GPULAB_CUDNN_CHECK(cudnn_api().cudnnFindConvolutionBackwardFilterAlgorithm(
            h, st.x.get(), st.y.get(), st.bwd_filter.desc.get(), st.w.get(), static_cast<int>(bf.size()), &returned,
            bf.data()));
        st.bwd_filter.choice = choose(bf, returned, l, "backward-filter", bwd_filter_name, n);

        std::string label = l.name + ": forward " + fwd_name(st.fwd.choice.algo) + ", backward-filter " +
                            bwd_filter_name(st.bwd_filter.choice.algo);
        if (l.needs_input_gradient) {
            GPULAB_CUDNN_CHECK(cudnn_api().cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max_count));
            std::vector<cudnnConvolutionBwdDataAlgoPerf_t> bd(find_slots(max_count));
            GPULAB_CUDNN_CHECK(cudnn_api().cudnnFindConvolutionBackwardDataAlgorithm(
                h, st.w.get(), st.y.get(), st.bwd_data.desc.get(), st.x.get(), static_cast<int>(bd.size()), &returned,
                bd.data()));
            st.bwd_data.choice = choose(bd, returned, l, "backward-data", bwd_data_name, n);
            label += ", backward-data " + std::string(bwd_data_name(st.bwd_data.choice.algo));
        }
        for (ConvDirection* c : {&st.fwd, &st.bwd_data, &st.bwd_filter}) {
            GPULAB_CUDNN_CHECK(cudnn_api().cudnnSetConvolutionMathType(c->desc.get(), c->choice.math));
            nt.workspace = std::max(nt.workspace, c->choice.workspace);
            const bool runs = c != &st.bwd_data || l.needs_input_gradient;
            nt.directions += runs;
            if (fp16_ && c->choice.math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION) {
                label += " (one direction converting FP32 data to FP16)";
                nt.fp16_directions += runs;
            } else if (c->choice.math != CUDNN_FMA_MATH) {
                label += tf32_ ? " (one direction in TF32-permitting math)" : " (one direction without FMA math: TF32 possible)";
                nt.tf32_possible = true;
                nt.tf32_directions += runs;
            }
            if (!c->choice.deterministic) label += " (one direction non-deterministic: sums vary in the last bits)";
        }
        nt.algorithms += (nt.algorithms.empty() ? "" : "; ") + label;
    }

    void gemm(const plan::Gemm& g, const float* a, const float* b, float* c) {
        const float one = 1.0f, zero = 0.0f;
        if (fp16_) {
            // FP16 mixed: the same arguments through cublasGemmEx, FP32 A, B and C, FP16 compute
            // permitted (alpha and beta are floats for a CUBLAS_COMPUTE_32F* type).
            GPULAB_CUBLAS_CHECK(cublas_api().cublasGemmEx(
                cublas_, g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, g.m, g.n, g.k,
                &one, a, CUDA_R_32F, g.lda, b, CUDA_R_32F, g.ldb, &zero, c, CUDA_R_32F, g.ldc,
                CUBLAS_COMPUTE_32F_FAST_16F, CUBLAS_GEMM_DEFAULT));
            return;
        }
        GPULAB_CUBLAS_CHECK(cublas_api().cublasSgemm_v2(cublas_, g.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                                        g.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, g.m, g.n, g.k, &one, a,
                                                        g.lda, b, g.ldb, &zero, c, g.ldc));
    }

    // Queues the loss kernels on the last forward's logits: per-image loss and hit, the gradient of
    // the mean loss into dlogits_, and the copies of the losses and hits back into page-locked
    // memory; sum_losses() reads them after backward's wait. Labels are checked on the host before
    // they are copied in.
    void queue_loss(const std::uint8_t* labels) {
        const cudaStream_t s = stream_->get();
        const auto n = static_cast<std::size_t>(n_);
        staging_free_->synchronize();
        std::memcpy(staged_labels_.data(), labels, n);
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(labels_.data(), staged_labels_.data(), n, cudaMemcpyHostToDevice, s));
        staging_free_->record(s);
        const float* logits = outputs_.back().data();
        // The two loss kernels count towards the last layer's backward time, as in the kernel engine
        // (kernel_train_engine.h), so both engines' per-layer times add up the same work (issue 30,
        // item 6); the label upload and the read-back stay outside, as there.
        loss_marks_[0]->record(s);
        launch(kern::per_image_launch(n_), kern::softmax_xent_forward_kernel, logits,
               static_cast<const std::uint8_t*>(labels_.data()), losses_.data(), hits_.data(), n_, model_.classes);
        launch(kern::per_image_launch(n_), kern::softmax_xent_backward_kernel, logits,
               static_cast<const std::uint8_t*>(labels_.data()), dlogits_.data(), n_, model_.classes);
        if (fp16_) {
            // FP16 mixed: the loss gradient times the scale, so the gradients below it stay above
            // FP16's smallest numbers while a product converts them (the loss itself is unscaled).
            backward_scale_ = scaler_.scale;
            launch(kern::elementwise_launch(n_ * model_.classes), kern::scale_kernel, dlogits_.data(),
                   static_cast<std::int64_t>(n_ * model_.classes), backward_scale_);
        }
        loss_marks_[1]->record(s);
        GPULAB_CUDA_CHECK(
            cudaMemcpyAsync(staged_losses_.data(), losses_.data(), n * sizeof(float), cudaMemcpyDeviceToHost, s));
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(staged_hits_.data(), hits_.data(), n * sizeof(int), cudaMemcpyDeviceToHost, s));
    }

    // The mean loss and the hits of the last backward, summed in double in image order; call after
    // the stream has been waited for.
    train::BatchResult sum_losses() const {
        train::BatchResult r;
        for (std::int64_t m = 0; m < n_; ++m) {
            r.loss += static_cast<double>(staged_losses_.data()[m]);
            r.correct += staged_hits_.data()[m];
        }
        r.loss /= static_cast<double>(n_);
        return r;
    }

    // conv + bias + ReLU in one call, into `relu_out` (the ReLU layer's output): y = ReLU(alpha1 *
    // conv(x) + alpha2 * z + bias) with alpha1 = 1, alpha2 = 0. z must be a tensor of y's shape; the
    // conv's own output buffer serves, zeroed at allocation and never written while the layer is
    // fused, so 0 * z is 0 (a NaN left in z would survive a 0 factor). The algorithm and workspace
    // are the forward's Find choice: the documentation ties only the IDENTITY activation to
    // IMPLICIT_PRECOMP_GEMM, not ReLU. False when cuDNN answers NOT_SUPPORTED (any code of that category) all the same: every
    // layer then runs unfused from now on (implementation() says so), and the caller does the
    // separate calls.
    bool conv_bias_relu(LayerState& st, const Layer& l, const float* x, const float* z, float* relu_out) {
        const float one = 1.0f, zero = 0.0f;
        const cudnnStatus_t status = cudnn_api().cudnnConvolutionBiasActivationForward(
            cudnn_, &one, st.x.get(), x, st.w.get(), weights(l), st.fwd.desc.get(),
            static_cast<cudnnConvolutionFwdAlgo_t>(st.fwd.choice.algo), workspace_.data(), st.fwd.choice.workspace,
            &zero, st.y.get(), z, st.bias.get(), biases(l), relu_.get(), st.y.get(), relu_out);
        // cuDNN 9 answers a refusal with a sub-code of the NOT_SUPPORTED category (3001-3014, e.g.
        // 3007 NOT_SUPPORTED_SHAPE), not 3000 itself: the category decides (issue 44, item 4).
        static_assert(CUDNN_STATUS_CATEGORY(3007) == CUDNN_STATUS_NOT_SUPPORTED, "cuDNN 9's status categories");
        if (CUDNN_STATUS_CATEGORY(static_cast<int>(status)) == CUDNN_STATUS_NOT_SUPPORTED) {
            for (char& f : fuse_relu_) f = 0;  // every layer unfused: one rule for the whole net
            fusion_refused_ = true;
            describe();
            return false;
        }
        GPULAB_CUDNN_CHECK(status);
        return true;
    }

    template <class... P, class... A>
    void launch(const kern::LaunchShape& l, void (*kernel)(P...), A... args) {
        const dim3 grid(l.grid.x, l.grid.y, l.grid.z), block(l.block.x, l.block.y, l.block.z);
        kernel<<<grid, block, l.shared_bytes, stream_->get()>>>(static_cast<P>(args)...);
        GPULAB_CUDA_CHECK_LAUNCH();
    }

    // The forward pass's layer times, once its last event is done (waited for here if need be).
    void read_forward_times() const {
        if (!forward_times_pending_) return;
        fwd_marks_.back()->synchronize();
        for (std::size_t i = 0; i < times_.size(); ++i) times_[i].forward_ns = elapsed_ns(*fwd_marks_[i], *fwd_marks_[i + 1]);
        forward_times_pending_ = false;
    }
    // Backward marks run from the last layer to the first: layer i's work lies between marks i+1 and i.
    void read_backward_times() {
        for (std::size_t i = 0; i < times_.size(); ++i) times_[i].backward_ns = elapsed_ns(*bwd_marks_[i + 1], *bwd_marks_[i]);
        if (!times_.empty()) times_.back().backward_ns += elapsed_ns(*loss_marks_[0], *loss_marks_[1]);
    }

    std::vector<float> download(const DeviceBuffer<float>& from, std::size_t count) const {
        std::vector<float> out(count);
        if (count == 0 || from.data() == nullptr) return {};
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(out.data(), from.data(), count * sizeof(float), cudaMemcpyDeviceToHost,
                                          stream_->get()));
        stream_->synchronize();
        return out;
    }
    void upload(DeviceBuffer<float>& to, const std::vector<float>& from) {
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.size() * sizeof(float), cudaMemcpyHostToDevice,
                                          stream_->get()));
        stream_->synchronize();
    }

    const float* layer_input(std::size_t i) const { return i == 0 ? input_.data() : outputs_[i - 1].data(); }
    // Every block starts on a 256-byte boundary on the device (plan::DeviceParams).
    const float* weights(const Layer& l) const { return params_.data() + layout_.device_offset(l.weight_offset); }
    const float* biases(const Layer& l) const { return params_.data() + layout_.device_offset(l.bias_offset); }
    float* grad_weights(const Layer& l) { return grads_.data() + layout_.device_offset(l.weight_offset); }
    float* grad_biases(const Layer& l) { return grads_.data() + layout_.device_offset(l.bias_offset); }

    // The stream is declared first so it is destroyed last, after the work of every buffer on it.
    std::unique_ptr<Stream> stream_;
    struct Handles {
        ~Handles() {
            if (cublas != nullptr && load_cublas().api != nullptr) load_cublas().api->cublasDestroy_v2(cublas);
            if (cudnn != nullptr && load_cudnn().api != nullptr) load_cudnn().api->cudnnDestroy(cudnn);
            cudaGetLastError();
        }
        cudnnHandle_t cudnn = nullptr;
        cublasHandle_t cublas = nullptr;
    } handles_;
    cudnnHandle_t& cudnn_ = handles_.cudnn;
    cublasHandle_t& cublas_ = handles_.cublas;
    Owned<cudnnActivationDescriptor_t> relu_;
    Owned<cudnnPoolingDescriptor_t> pool_;
    bool handles_ready_ = false;  // open_handles finished: stream, handles and descriptors all made
    train::ModelDesc model_;
    std::int64_t max_batch_ = 0, n_ = 0;
    plan::DeviceParams layout_;  // where each layer's parameters sit on the device
    std::size_t count_ = 0;      // floats of parameters on the device, padding included
    DeviceBuffer<float> params_, grads_, velocity_, input_, grad_a_, grad_b_, dlogits_, losses_;
    DeviceBuffer<std::uint8_t> labels_;
    DeviceBuffer<int> hits_;
    DeviceBuffer<int> nonfinite_;  // FP16 mixed: the overflow flag (1: some weight gradient not finite)
    std::vector<DeviceBuffer<float>> outputs_;
    DeviceBuffer<unsigned char> workspace_;
    // Page-locked staging for the copies of every step (see the file comment): images and labels
    // go up from here, the per-image losses and hits come back here.
    PinnedBuffer<float> staged_images_, staged_losses_;
    PinnedBuffer<std::uint8_t> staged_labels_;
    PinnedBuffer<int> staged_hits_;
    PinnedBuffer<int> staged_flag_;  // the overflow flag, back at the step's one wait
    std::unique_ptr<Event> staging_free_;  // recorded after each copy out of the staging buffers
    // Per layer: a conv whose ReLU is fused into its forward (cleared for good if cuDNN answers
    // NOT_SUPPORTED for the fused call).
    std::vector<char> fuse_relu_;
    bool fusion_refused_ = false;
    mutable bool forward_times_pending_ = false;  // a forward ran whose times are not read yet
    std::vector<std::unique_ptr<Event>> fwd_marks_, bwd_marks_;
    std::unique_ptr<Event> loss_marks_[2];  // around the loss kernels (their time joins the last layer's backward)
    mutable std::vector<train::LayerTime> times_;
    std::map<std::int64_t, Net> nets_;
    std::string implementation_;
    std::string algorithms_;  // the last net's conv algorithms, for describe()
    static constexpr const char* kFp32Text = "FP32 (FMA math: no TF32)";
    std::string precision_ = kFp32Text;
    train::ComputePrecision asked_ = train::ComputePrecision::Fp32;  // set_compute_precision's
    bool tf32_ = false;  // TF32 asked for and the device has TF32 tensor cores: what setup() configured
    bool fp16_ = false;  // FP16 mixed asked for and the device has FP16 tensor cores (7.0+): likewise
    int cc_major_ = -1, cc_minor_ = 0;  // the device's, read at setup (-1: no setup since the precision was set)
    struct Fp16Net {
        int directions = 0, fp16_directions = 0;
    } fp16_net_;  // FP16 mixed: the last net's convolution directions, for precision()
    train::LossScaler scaler_;    // FP16 mixed: the scale and the skipped updates, on the host
    float fixed_loss_scale_ = 0.0f;  // 0: dynamic (set_loss_scale)
    float backward_scale_ = 1.0f; // the scale the last backward pass multiplied by (and divided out)
    bool grads_finite_ = true;    // FP16 mixed: the last backward's weight gradients were all finite
};

}  // namespace

}  // namespace gpulab::cuda

namespace gpulab::gpu {

std::unique_ptr<train::TrainEngine> make_cudnn_train_engine() { return std::make_unique<cuda::CudnnTrainEngine>(); }

}  // namespace gpulab::gpu
