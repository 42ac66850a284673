// CudaDevice: the "device" the training layers (train_layers.h) and the engine body
// (gpu_train_engine_body.h) run on when it is a real GPU. The same members as SimDevice
// (sim_device.h, which lists them); here they are CUDA runtime calls, every one checked with
// GPULAB_CUDA_CHECK, so a failure is a sentence naming the call ("cudaMalloc(...) failed at
// cuda_device.cuh:NN: cudaErrorMemoryAllocation: out of memory").
//
// Everything runs in order on one non-blocking stream: copies are cudaMemcpyAsync on that stream
// followed by cudaStreamSynchronize (a plain cudaMemcpy would run on the legacy default stream,
// which does not wait for a non-blocking stream's kernels). Timing marks are cudaEvents recorded on
// the stream; finish() waits for the stream, after which ns_between reads cudaEventElapsedTime.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_check.cuh"
#include "cuda/device_buffer.cuh"
#include "cuda/staged_backend.cuh"
#include "cuda/launch_shape.h"

namespace gpulab::cuda {

class CudaDevice {
public:
    // After a failure: a sticky error (an illegal address) poisons the context for the whole
    // process; recorded there, so every GPU backend and engine says so (issue 30, item 5).
    void note_failure(const char* what) const noexcept {
        try {
            note_if_context_lost(stream_.get(), what);
        } catch (...) {
            // no memory for the text: the failure itself is still reported by the caller
        }
    }

    template <class T>
    class Array {
    public:
        Array() = default;
        T* ptr() const { return buf_ ? buf_->data() : nullptr; }
        std::size_t size() const { return size_; }

    private:
        friend class CudaDevice;
        std::shared_ptr<DeviceBuffer<T>> buf_;  // shared: an Array is a handle, like a device pointer
        std::size_t size_ = 0;
    };

    template <class T>
    Array<T> alloc(const char*, std::size_t count) {
        Array<T> a;
        a.buf_ = std::make_shared<DeviceBuffer<T>>(count == 0 ? 1 : count);
        a.size_ = count;
        zero(a, count);
        return a;
    }
    template <class T>
    void upload(const Array<T>& a, const T* host, std::size_t count) {
        check_count(a, count, "upload");
        if (count == 0) return;
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(a.ptr(), host, count * sizeof(T), cudaMemcpyHostToDevice, stream_.get()));
        stream_.synchronize();
    }
    template <class T>
    void download(const Array<T>& a, T* host, std::size_t count) const {
        check_count(a, count, "download");
        if (count == 0) return;
        GPULAB_CUDA_CHECK(cudaMemcpyAsync(host, a.ptr(), count * sizeof(T), cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
    }
    template <class T>
    void zero(const Array<T>& a, std::size_t count) {
        check_count(a, count, "zero");
        if (count > 0) GPULAB_CUDA_CHECK(cudaMemsetAsync(a.ptr(), 0, count * sizeof(T), stream_.get()));
    }

    // kernel is a __global__ function: through a pointer, <<<>>> launches it like a direct call.
    template <class... P, class... A>
    void launch(const char*, const kern::LaunchShape& l, void (*kernel)(P...), A&&... args) {
        const dim3 grid(l.grid.x, l.grid.y, l.grid.z), block(l.block.x, l.block.y, l.block.z);
        kernel<<<grid, block, l.shared_bytes, stream_.get()>>>(static_cast<P>(args)...);
        GPULAB_CUDA_CHECK_LAUNCH();
    }

    void reserve_stamps(std::size_t count) {
        if (events_.size() < count) {
            events_.clear();
            for (std::size_t i = 0; i < count; ++i) events_.push_back(std::make_unique<Event>());
        }
    }
    void stamp(std::size_t i) { events_.at(i)->record(stream_.get()); }
    void finish() { stream_.synchronize(); }
    std::int64_t ns_between(std::size_t from, std::size_t to) const {
        return elapsed_ns(*events_.at(from), *events_.at(to));
    }

private:
    template <class T>
    static void check_count(const Array<T>& a, std::size_t count, const char* what) {
        if (count > a.size()) {
            throw std::logic_error(std::string("cuda-kernel: ") + what + " of " + std::to_string(count) +
                                   " elements into a buffer of " + std::to_string(a.size()));
        }
    }
    Stream stream_;
    std::vector<std::unique_ptr<Event>> events_;
};

}  // namespace gpulab::cuda
