// A dense float32 tensor in C order, 64-byte aligned so the SIMD paths may use aligned loads.
// Deliberately small: lessons need shapes and contiguous floats, not a framework.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <string>
#include <vector>

namespace gpulab::core {

template <class T>
struct AlignedAllocator {
    using value_type = T;
    static constexpr std::align_val_t kAlignment{64};
    AlignedAllocator() = default;
    template <class U>
    AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), kAlignment)); }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, kAlignment); }
    template <class U>
    bool operator==(const AlignedAllocator<U>&) const noexcept { return true; }
};

using FloatBuffer = std::vector<float, AlignedAllocator<float>>;

struct Tensor {
    std::vector<int64_t> shape;
    FloatBuffer data;

    // Allocates; callers check the size against memory first (see core/runtime/memory.h).
    static Tensor zeros(std::vector<int64_t> shape);
    // The same, zeroed a piece (kZeroPieceFloats) at a time with `between_pieces` called before
    // each: a run that may be told to stop passes core::throw_if_cancelled, since faulting in and
    // zeroing 2^26 floats takes 100-300 ms in one go (ops/ knows nothing of stop requests).
    static Tensor zeros(std::vector<int64_t> shape, const std::function<void()>& between_pieces);
    static constexpr int64_t kZeroPieceFloats = 1 << 16;

    int64_t size() const { return static_cast<int64_t>(data.size()); }
    std::size_t bytes() const { return data.size() * sizeof(float); }
    float* ptr() { return data.data(); }
    const float* ptr() const { return data.data(); }
    std::string shape_string() const;  // "(1024, 768)"
};

// Product of the dimensions; 0 for an empty shape list is avoided: a scalar () has one element.
int64_t element_count(const std::vector<int64_t>& shape);

}  // namespace gpulab::core
