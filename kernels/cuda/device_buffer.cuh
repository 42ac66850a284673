// RAII owners for the CUDA resources the backends hold: device buffers (cudaMalloc), pinned host
// buffers (cudaMallocHost), a stream and events, plus PhaseTimer, which records events between
// the phases of one run (upload | compute | download) and reads the GPU time of each.
//
// Why pinned staging: the GPU's copy engines can only DMA from page-locked memory. A pageable
// source makes the driver copy through its own pinned bounce buffer first, which is slower and
// hides what the bus can do (TARGETS.md shows the 2-6x gap).
//
// Growing, never shrinking: buffers are reallocated only when a larger size is asked for, so a
// sweep from 2^10 to 2^26 allocates about log2 times, not once per run.
//
// Destructors never throw: they may run after the CUDA runtime has begun shutting down at program
// exit, when cudaFree reports cudaErrorCudartUnloading; that error is cleared and ignored.
//
// Verified by tests/test_gpu_backends.cpp (every run goes through these types).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "cuda_check.cuh"

namespace gpulab::cuda {

// Where a CudaBuffer's memory comes from. Each allocator checks its own call, so a failure names
// cudaMalloc or cudaMallocHost, not a template parameter.
struct DeviceMemory {
    static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        GPULAB_CUDA_CHECK(cudaMalloc(&p, bytes));
        return p;
    }
    static void free(void* p) noexcept { cudaFree(p); }
};

struct PinnedMemory {
    static void* allocate(std::size_t bytes) {
        void* p = nullptr;
        GPULAB_CUDA_CHECK(cudaMallocHost(&p, bytes));
        return p;
    }
    static void free(void* p) noexcept { cudaFreeHost(p); }
};

// `count` elements of T from `Memory`, owned: movable, not copyable, grown by reserve().
template <class T, class Memory>
class CudaBuffer {
public:
    CudaBuffer() = default;
    explicit CudaBuffer(std::size_t count) { reserve(count); }
    CudaBuffer(const CudaBuffer&) = delete;
    CudaBuffer& operator=(const CudaBuffer&) = delete;
    CudaBuffer(CudaBuffer&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), capacity_(std::exchange(o.capacity_, 0)) {}
    CudaBuffer& operator=(CudaBuffer&& o) noexcept {
        if (this != &o) {
            release();
            ptr_ = std::exchange(o.ptr_, nullptr);
            capacity_ = std::exchange(o.capacity_, 0);
        }
        return *this;
    }
    ~CudaBuffer() { release(); }

    // Ensures room for `count` elements; old contents are not kept (callers rewrite them).
    void reserve(std::size_t count) {
        if (count <= capacity_) return;
        release();
        ptr_ = static_cast<T*>(Memory::allocate(count * sizeof(T)));
        capacity_ = count;
    }
    void release() noexcept {
        if (ptr_ != nullptr) {
            Memory::free(ptr_);
            cudaGetLastError();
        }
        ptr_ = nullptr;
        capacity_ = 0;
    }
    T* data() const { return ptr_; }
    std::size_t capacity() const { return capacity_; }
    std::size_t capacity_bytes() const { return capacity_ * sizeof(T); }

private:
    T* ptr_ = nullptr;
    std::size_t capacity_ = 0;
};

// On the GPU (cudaMalloc).
template <class T>
using DeviceBuffer = CudaBuffer<T, DeviceMemory>;
// Page-locked host memory (cudaMallocHost): the staging side of every copy.
template <class T>
using PinnedBuffer = CudaBuffer<T, PinnedMemory>;

// Non-blocking: our work never waits for (or is waited on by) the legacy default stream, which the
// GL interop or another library may be using at the same time.
class Stream {
public:
    Stream() { GPULAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream() {
        cudaStreamDestroy(s_);
        cudaGetLastError();
    }
    cudaStream_t get() const { return s_; }
    void synchronize() const { GPULAB_CUDA_CHECK(cudaStreamSynchronize(s_)); }

private:
    cudaStream_t s_ = nullptr;
};

class Event {
public:
    Event() { GPULAB_CUDA_CHECK(cudaEventCreateWithFlags(&e_, cudaEventDefault)); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event() {
        cudaEventDestroy(e_);
        cudaGetLastError();
    }
    cudaEvent_t get() const { return e_; }
    void record(cudaStream_t s) const { GPULAB_CUDA_CHECK(cudaEventRecord(e_, s)); }
    void synchronize() const { GPULAB_CUDA_CHECK(cudaEventSynchronize(e_)); }

private:
    cudaEvent_t e_ = nullptr;
};

// GPU time between two recorded events in integer nanoseconds. cudaEventElapsedTime returns float
// milliseconds with about 0.5 us resolution; we round once, here, and keep integers from then on.
inline int64_t elapsed_ns(const Event& from, const Event& to) {
    float ms = 0.0f;
    GPULAB_CUDA_CHECK(cudaEventElapsedTime(&ms, from.get(), to.get()));
    return static_cast<int64_t>(std::llround(static_cast<double>(ms) * 1e6));
}

// Marks 0..kMarks-1 recorded on one stream between phases:
//
//   mark(0) | H2D copy | mark(1) | kernel(s) | mark(2) | D2H copy | mark(3)
//
// phase i lasts from mark i to mark i+1. Events on one stream complete in order, so waiting for
// the last mark means every earlier one is done too.
class PhaseTimer {
public:
    static constexpr int kMarks = 4;
    void mark(int i, cudaStream_t s) const { marks_[i].record(s); }
    void wait_last() const { marks_[kMarks - 1].synchronize(); }
    int64_t phase_ns(int i) const { return elapsed_ns(marks_[i], marks_[i + 1]); }

private:
    Event marks_[kMarks];
};

}  // namespace gpulab::cuda
