// StagedGpuBackend: the run() both GPU backends share, so cuda-kernel and cudnn are timed the
// same way and differ only in the compute phase they enqueue.
//
// One run, all on one stream, each phase bracketed by CUDA events (PhaseTimer):
//
//   in.data --memcpy--> h_in_ (pinned)          not timed: a host copy, see staged_backend.cu
//   mark 0 | h_in_  --H2D--> d_in_   | mark 1      -> upload_ns
//            compute(d_in_ -> d_out_) | mark 2     -> compute_ns
//            d_out_ --D2H--> h_out_   | mark 3     -> download_ns
//   h_out_ --memcpy--> out.data
//
// launch_ns (host clock) brackets only the compute() call, i.e. enqueuing the kernel(s): it
// overlaps the GPU timeline above, so it is reported beside the phases and not in the total.
//
// d_out_ stays alive after the run and is what device_output() returns, so the app can show the
// result through CUDA-GL interop without another copy. It stays valid until the next run() or the
// backend's destruction; reading it while another thread is inside run() races with that run.
//
// Sticky errors: a kernel fault (illegal address, launch failure, watchdog timeout) leaves the
// CUDA context of the whole process unusable, and every later call repeats the same error. The
// first failing run detects this, says so in its error, and from then on availability() of every
// GPU backend reports "CUDA context lost ..." instead of failing each run with an old message.
//
// Convolution (run_conv2d) uses the same machinery with two inputs: the upload phase copies the
// input image(s) AND the filter bank, between the same marks 0 and 1; compute_conv2d() is the
// compute phase; the N,K,P,Q output is the download and stays in d_out_ for device_output().
// Anything a backend must decide per shape before it can enqueue (cuDNN's algorithm search and
// workspace) happens in prepare_conv2d(), before mark 0, so it is never timed as a phase.
//
// Verified by tests/test_gpu_backends.cpp (phases positive, device_output non-null, results equal
// cpu-scalar, bandwidth_limit ok, oversize requests refused) and tests/test_gpu_conv2d.cpp (the
// convolution path of every GPU backend against cpu-scalar).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "backends/backend.h"
#include "device_buffer.cuh"

namespace gpulab::cuda {

// Call after a failure, with the stream the failed work ran on. Clears the last error and waits for
// the stream: if that still fails, the error is sticky, so records a process-wide reason and
// returns true. `what` is the failure already reported, quoted in the reason. Never throws.
bool note_if_context_lost(cudaStream_t stream, const std::string& what) noexcept;
// Empty while the context works, else why no GPU backend can run any more in this process.
std::string context_lost_reason();

class StagedGpuBackend : public core::Backend {
public:
    core::BackendKind kind() const override { return core::BackendKind::Gpu; }
    core::Availability availability() const override;
    // `bytes` is input plus output together, as for the CPU backends. Checks free device memory
    // (cudaMemGetInfo, crediting buffers we already hold) and host memory for the pinned staging.
    core::Availability can_allocate(std::size_t bytes) const override;
    core::RunResult run(const core::OpDesc& op, const core::Tensor& in, core::Tensor& out) override;
    core::LimitResult bandwidth_limit(std::size_t bytes) override;
    const void* device_output() const override { return has_output_ ? d_out_.data() : nullptr; }
    uint64_t output_generation() const override { return output_generation_.load(std::memory_order_acquire); }

    // Shape checks through conv2d_problem(); the run itself as in the picture above.
    bool supports_conv2d(const core::Conv2dDesc& d) const override { return conv2d_problem(d).empty(); }
    core::RunResult run_conv2d(const core::Conv2dDesc& d, const core::Tensor& input, const core::Tensor& filters,
                               core::Tensor& output) override;

protected:
    // Empty when this backend can run `d`, else the sentence run_conv2d returns. The default is the
    // refusal of a backend without convolution.
    virtual std::string conv2d_problem(const core::Conv2dDesc&) const {
        return std::string(name()) + " does not offer conv2d";
    }
    // Before the timed phases of each conv run, after the buffers exist. Throws CudaError.
    virtual void prepare_conv2d(const core::Conv2dDesc&, cudaStream_t) {}
    // Enqueues d_out = conv(d_in, d_filters) (N,K,P,Q from N,C,H,W and K,C,R,S) on `stream`,
    // without waiting. Only called when conv2d_problem(d) is empty. Throws CudaError.
    virtual void compute_conv2d(const core::Conv2dDesc& d, const float* d_in, const float* d_filters, float* d_out,
                                cudaStream_t stream) = 0;

    // Enqueues d_out[i] = op(d_in[i]) for i < n on `stream`, without waiting. Throws CudaError.
    virtual void compute(const core::OpDesc& op, const float* d_in, float* d_out, int64_t n,
                         cudaStream_t stream) = 0;
    // Once, before the first compute, with the stream every run uses (cuDNN binds its handle here).
    virtual void prepare(cudaStream_t) {}

    // ok when `need_bytes` more device memory fit in what cudaMemGetInfo reports free.
    static core::Availability device_room(std::size_t need_bytes);

private:
    void ensure_ready();

    // Declared first so it is destroyed last, after every buffer whose work ran on it.
    std::unique_ptr<Stream> stream_;
    std::unique_ptr<PhaseTimer> timer_;
    bool ready_ = false;
    PinnedBuffer<float> h_in_, h_out_, h_filters_;
    DeviceBuffer<float> d_in_, d_out_, d_filters_;
    bool has_output_ = false;
    // Bumped by run() and run_conv2d() before they touch d_out_ (core/backends/device_output_tag.h).
    std::atomic<uint64_t> output_generation_{0};
};

}  // namespace gpulab::cuda
