// measure_cublas_gemm on a GPU (cublas_gemm_precision.h): one cuBLAS handle on our own stream, A and
// B copied once per format (FP32 as is, FP16 / BF16 rounded to nearest even on the host, so the
// check knows exactly what the GPU multiplied), then per row cublasGemmEx timed with CUDA events
// around the call alone: warm-up, samples, median. Every CUDA / cuBLAS call is checked and a failure
// becomes that row's error, in a sentence naming the precision. Calls and the documentation read
// for each: docs/gpu-verification.md. Not yet run on a GPU.
//
// Row-major C (m x n) = A (m x k) B (k x n) is, read column-major, C^T = B^T A^T: so cuBLAS gets
// B as its first operand with n rows, A second, no transposes, and leading dimensions n, k, n
// (the mapping cudnn_train_plan.h uses for cublasSgemm).
#include <cuda_runtime.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "cublas_gemm_precision.h"
#include "cublas_library.h"
#include "cuda/cuda_check.cuh"
#include "cuda/device_buffer.cuh"
#include "cuda/staged_backend.cuh"
#include "gpu_backends.h"
#include "measure/clock.h"
#include "ops/pseudo_random.h"

namespace gpulab::cuda {

namespace {

// One handle for the whole measurement, destroyed even when a call throws.
class CublasHandle {
public:
    explicit CublasHandle(cudaStream_t s) {
        GPULAB_CUBLAS_CHECK(cublas_api().cublasCreate_v2(&h_));
        GPULAB_CUBLAS_CHECK(cublas_api().cublasSetStream_v2(h_, s));
        // Default math: the compute type passed to each cublasGemmEx alone decides whether TF32 may
        // be used (only CUBLAS_COMPUTE_32F_FAST_TF32 here), so the FP32 row stays FP32.
        GPULAB_CUBLAS_CHECK(cublas_api().cublasSetMathMode(h_, CUBLAS_DEFAULT_MATH));
    }
    CublasHandle(const CublasHandle&) = delete;
    CublasHandle& operator=(const CublasHandle&) = delete;
    ~CublasHandle() {
        if (h_ != nullptr) cublas_api().cublasDestroy_v2(h_);
    }
    cublasHandle_t get() const { return h_; }

private:
    cublasHandle_t h_ = nullptr;
};

struct Precision {
    cudaDataType ab;               // A and B
    cublasComputeType_t compute;
    int min_cc_major;              // below this the format has no tensor-core path we ask for
    const char* path;
};

Precision precision_of(core::FpFormat f) {
    switch (f) {
    case core::FpFormat::Tf32:
        return {CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 8,
                "cuBLAS cublasGemmEx, FP32 data, CUBLAS_COMPUTE_32F_FAST_TF32: tensor cores multiply A and B as TF32"};
    case core::FpFormat::Fp16:
        return {CUDA_R_16F, CUBLAS_COMPUTE_32F, 7,
                "cuBLAS cublasGemmEx, CUDA_R_16F A and B, FP32 C and sums (CUBLAS_COMPUTE_32F): tensor cores"};
    case core::FpFormat::Bf16:
        return {CUDA_R_16BF, CUBLAS_COMPUTE_32F, 8,
                "cuBLAS cublasGemmEx, CUDA_R_16BF A and B, FP32 C and sums (CUBLAS_COMPUTE_32F): tensor cores"};
    case core::FpFormat::Fp32:
    default:
        return {CUDA_R_32F, CUBLAS_COMPUTE_32F, 0,
                "cuBLAS cublasGemmEx, FP32 data and sums (CUBLAS_COMPUTE_32F): no tensor cores"};
    }
}

// A or B as the GPU gets it: raw bytes on the device, plus the values as floats for the check.
struct Operand {
    std::unique_ptr<DeviceBuffer<unsigned char>> device;
    std::vector<float> values;
};

Operand upload(core::FpFormat f, const std::vector<float>& x, cudaStream_t s) {
    Operand o;
    std::vector<unsigned char> bytes;
    if (f == core::FpFormat::Fp16 || f == core::FpFormat::Bf16) {
        std::vector<uint16_t> bits(x.size());
        o.values.resize(x.size());
        for (std::size_t i = 0; i < x.size(); ++i) {
            bits[i] = f == core::FpFormat::Fp16 ? core::fp16_bits(x[i]) : core::bf16_bits(x[i]);
            o.values[i] = f == core::FpFormat::Fp16 ? core::fp16_value(bits[i]) : core::bf16_value(bits[i]);
        }
        bytes.assign(reinterpret_cast<const unsigned char*>(bits.data()),
                     reinterpret_cast<const unsigned char*>(bits.data() + bits.size()));
    } else {
        o.values = x;  // FP32 and TF32 rows: the GPU gets the floats themselves
        bytes.assign(reinterpret_cast<const unsigned char*>(x.data()), reinterpret_cast<const unsigned char*>(x.data() + x.size()));
    }
    o.device = std::make_unique<DeviceBuffer<unsigned char>>(bytes.size());
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(o.device->data(), bytes.data(), bytes.size(), cudaMemcpyHostToDevice, s));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));  // `bytes` is pageable and about to go
    return o;
}

void measure_row(core::GemmSpeedRow& row, const gpu::GpuProbe& p, const std::vector<float>& a,
                 const std::vector<float>& b, int64_t m, int64_t n, int64_t k, const core::MeasureConfig& config,
                 cudaStream_t s, const CublasHandle& handle) {
    const Precision pr = precision_of(row.inputs);
    row.path = pr.path;
    if (p.cc_major < pr.min_cc_major) {
        row.path = std::string("this GPU (compute capability ") + std::to_string(p.cc_major) + "." +
                   std::to_string(p.cc_minor) + ") has no " + core::format_label(row.inputs) +
                   " tensor cores; they need " + std::to_string(pr.min_cc_major) + ".0 or newer";
        return;
    }
    // With the TF32 / FP16 / BF16 rows the GPU multiplies in that format on tensor cores; which
    // kernel cuBLAS picked is not reported, so this is the hardware's capability, not an observation.
    row.native = true;
    const Operand da = upload(row.inputs, a, s), db = upload(row.inputs, b, s);
    DeviceBuffer<float> dc(static_cast<std::size_t>(m * n));
    const float alpha = 1.0f, beta = 0.0f;
    auto gemm = [&] {
        GPULAB_CUBLAS_CHECK(cublas_api().cublasGemmEx(
            handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k),
            &alpha, db.device->data(), pr.ab, static_cast<int>(n), da.device->data(), pr.ab, static_cast<int>(k),
            &beta, dc.data(), CUDA_R_32F, static_cast<int>(n), pr.compute, CUBLAS_GEMM_DEFAULT));
    };
    for (int w = 0; w < std::max(config.warmup, 1); ++w) gemm();  // at least one: cuBLAS picks and loads its kernel
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<int64_t> samples;
    const Event start, stop;
    const int64_t began = core::now_ns();
    while (static_cast<int>(samples.size()) < config.max_samples) {
        if (static_cast<int>(samples.size()) >= config.min_samples && core::now_ns() - began > config.time_budget_ns) break;
        start.record(s);
        gemm();
        stop.record(s);
        stop.synchronize();
        samples.push_back(elapsed_ns(start, stop));
    }
    std::vector<float> c(static_cast<std::size_t>(m * n));
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(c.data(), dc.data(), c.size() * sizeof(float), cudaMemcpyDeviceToHost, s));
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s));
    row.ran = true;
    gpu::cublas_gemm_fill_times(row, std::move(samples), m, n, k);
    // The bound for FP16 / BF16 starts from the unrounded inputs, so it includes the host's rounding.
    row.worst_error_ratio = gpu::cublas_gemm_worst_ratio(row.inputs, a, b, c, m, n, k);
    row.check_pass = row.worst_error_ratio <= 1.0;
}

}  // namespace

}  // namespace gpulab::cuda

namespace gpulab::gpu {

std::vector<core::GemmSpeedRow> measure_cublas_gemm(int64_t m, int64_t n, int64_t k, const core::MeasureConfig& config) {
    if (std::string why = cublas_gemm_problem(m, n, k); !why.empty()) return cublas_gemm_not_run(why, true);
    try {
        const GpuProbe& p = probe();
        if (!p.device_ok) return cublas_gemm_not_run(p.reason);
        if (std::string lost = cuda::context_lost_reason(); !lost.empty()) return cublas_gemm_not_run(lost);
        const cuda::CublasLoad& lib = cuda::load_cublas();
        if (lib.api == nullptr) return cublas_gemm_not_run(lib.reason);
    } catch (const std::exception& e) {
        return cublas_gemm_not_run(e.what());
    }
    std::vector<core::GemmSpeedRow> rows = cublas_gemm_not_run("");
    const std::vector<float> a = core::uniform_signed_floats(m * k, 1), b = core::uniform_signed_floats(k * n, 2);
    std::unique_ptr<cuda::Stream> stream;
    try {
        stream = std::make_unique<cuda::Stream>();
        const cuda::CublasHandle handle(stream->get());
        for (core::GemmSpeedRow& r : rows) {
            try {
                cuda::measure_row(r, probe(), a, b, m, n, k, config, stream->get(), handle);
            } catch (const std::exception& e) {
                r.ran = false;
                r.error = std::string("cuBLAS could not run the ") + core::format_label(r.inputs) +
                          " matrix product: " + e.what();
                cuda::note_if_context_lost(stream->get(), r.error);
            }
        }
    } catch (const std::exception& e) {
        // No stream or no handle: nothing ran.
        const std::string why = std::string("cuBLAS could not start on this GPU: ") + e.what();
        for (core::GemmSpeedRow& r : rows) r.error = why;
        if (stream) cuda::note_if_context_lost(stream->get(), why);
    }
    return rows;
}

}  // namespace gpulab::gpu
