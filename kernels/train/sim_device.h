// SimDevice: the "device" the training layers (train_layers.h) and the engine body
// (gpu_train_engine_body.h) run on when the GPU is the SIMT simulator. Its twin for a real GPU is
// cuda_device.cuh (CudaDevice); both offer the same few members, so the layer sequence is written
// once as templates over the device:
//
//   Array<T>                  device memory for `count` T: ptr() gives the kernels' GlobalPtr<T>
//   alloc<T>(name, count)     a zeroed Array (here a simulator Buffer, whose pointers know their extent)
//   upload(a, host, count)    host -> device, the first `count` elements
//   download(a, host, count)  device -> host
//   zero(a, count)            the first `count` elements set to 0
//   launch(name, shape, kernel, args...)   one kernel over kern::LaunchShape (from train_launch.h)
//   stamp(i), finish(), ns_between(i, j)   timing marks between layers (here the host clock: the
//                                          SIMULATION's time, never a GPU's)
//
// Errors: a launch the simulator refuses, or an access it catches (out of a buffer's bounds, a
// shared-memory race), throws std::runtime_error with the simulator's sentence.
//
// Include sim/sim_device_env.h before this header (it defines the device environment the kernel
// headers need); only .cpp files of gpulab_sim do.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuda/launch_shape.h"
#include "sim/sim_runtime.h"

namespace gpulab::sim {

class SimDevice {
public:
    // The simulator has no context to lose (cuda_device.cuh's twin records a sticky GPU error).
    void note_failure(const char*) const noexcept {}

    template <class T>
    class Array {
    public:
        Array() = default;
        GlobalPtr<T> ptr() const { return buf_ ? buf_->ptr() : GlobalPtr<T>{}; }
        std::size_t size() const { return buf_ ? buf_->size() : 0; }
        T* host_view() const { return buf_ ? buf_->data() : nullptr; }

    private:
        friend class SimDevice;
        std::shared_ptr<Buffer<T>> buf_;  // shared: an Array is a handle, like a device pointer
    };

    // Zeroed, as the CUDA device's alloc does (cudaMalloc, then cudaMemset): the engine relies on
    // it (the momentum starts at 0). Plain simulator buffers start poisoned (sim_runtime.h).
    template <class T>
    Array<T> alloc(const char* name, std::size_t count) {
        Array<T> a;
        a.buf_ = std::make_shared<Buffer<T>>(name, count);
        zero(a, count);
        return a;
    }
    template <class T>
    void upload(const Array<T>& a, const T* host, std::size_t count) {
        check_count(a, count, "upload");
        if (count > 0) std::memcpy(a.host_view(), host, count * sizeof(T));
    }
    template <class T>
    void download(const Array<T>& a, T* host, std::size_t count) const {
        check_count(a, count, "download");
        if (count > 0) std::memcpy(host, a.host_view(), count * sizeof(T));
    }
    template <class T>
    void zero(const Array<T>& a, std::size_t count) {
        check_count(a, count, "zero");
        if (count > 0) std::memset(static_cast<void*>(a.host_view()), 0, count * sizeof(T));
    }

    template <class... P, class... A>
    void launch(const char* name, const kern::LaunchShape& l, void (*kernel)(P...), A&&... args) {
        const LaunchConfig c{{l.grid.x, l.grid.y, l.grid.z}, {l.block.x, l.block.y, l.block.z}, l.shared_bytes};
        const Result r = sim::launch(name, c, Options{}, kernel, std::forward<A>(args)...);
        if (!r.ok) throw std::runtime_error("cuda-sim: " + r.error);
    }

    // Timing marks. The simulator runs each launch to completion before launch() returns, so a mark
    // is simply the host clock now.
    void reserve_stamps(std::size_t count) { stamps_.assign(count, {}); }
    void stamp(std::size_t i) { stamps_.at(i) = std::chrono::steady_clock::now(); }
    void finish() {}
    std::int64_t ns_between(std::size_t from, std::size_t to) const {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(stamps_.at(to) - stamps_.at(from)).count();
    }

private:
    template <class T>
    static void check_count(const Array<T>& a, std::size_t count, const char* what) {
        if (count > a.size()) {
            throw std::logic_error(std::string("cuda-sim: ") + what + " of " + std::to_string(count) +
                                   " elements into a buffer of " + std::to_string(a.size()));
        }
    }
    std::vector<std::chrono::steady_clock::time_point> stamps_;
};

}  // namespace gpulab::sim
