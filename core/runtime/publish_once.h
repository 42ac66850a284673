// A value computed once, by whichever thread asks first, and published through an atomic so that
// other threads can ask "is it ready?" without waiting. A function-local `static const T v = f();`
// also computes once, but every thread that reaches it while f() runs blocks on the
// static-initialisation guard: a GUI frame that merely wants to draw "probing the GPU ..." would
// freeze for as long as f() takes (gpu::probe(): driver start-up, context creation, cudnnCreate).
//
//   PublishOnce<Probe> g;            constant-initialised at namespace scope: no guard of its own
//   g.get([] { return slow(); });    computes once; other callers of get() wait for it
//   if (const Probe* p = g.try_get()) ...   never waits: nullptr until get() has finished
//
// Verified by tests/test_publish_once.cpp (try_get() answers while another thread is inside get(),
// every thread sees the same object afterwards).
#pragma once

#include <atomic>
#include <mutex>
#include <optional>

namespace gpulab::core {

template <class T>
class PublishOnce {
public:
    constexpr PublishOnce() = default;
    PublishOnce(const PublishOnce&) = delete;
    PublishOnce& operator=(const PublishOnce&) = delete;

    // The value, computing it with make() on the first call; concurrent first callers wait for it.
    template <class F>
    const T& get(F&& make) {
        if (const T* p = try_get()) return *p;
        std::call_once(once_, [&] {
            value_.emplace(make());
            published_.store(&*value_, std::memory_order_release);
        });
        return *value_;
    }
    // Never waits: the value once get() has finished computing it, else nullptr.
    const T* try_get() const { return published_.load(std::memory_order_acquire); }

private:
    std::once_flag once_;
    std::optional<T> value_;
    std::atomic<const T*> published_{nullptr};
};

}  // namespace gpulab::core
