// core/runtime/publish_once.h: try_get() answers at once while another thread is still computing the value,
// the value is computed once, and every caller sees the same object.
#include <doctest/doctest.h>

#include <atomic>
#include <future>
#include <thread>

#include "runtime/publish_once.h"

using gpulab::core::PublishOnce;

TEST_SUITE("publish-once") {
    TEST_CASE("try_get never waits for a get() in progress") {
        PublishOnce<int> once;
        std::promise<void> release;
        std::shared_future<void> released = release.get_future().share();
        std::atomic<bool> entered{false};
        std::atomic<int> calls{0};
        std::thread slow([&] {
            once.get([&] {
                ++calls;
                entered = true;
                released.wait();  // the "cold start": blocks until the test lets it finish
                return 42;
            });
        });
        while (!entered) std::this_thread::yield();
        // The maker is inside get(); a frame asking now must get "not yet", not block.
        CHECK(once.try_get() == nullptr);
        release.set_value();
        slow.join();
        REQUIRE(once.try_get() != nullptr);
        CHECK(*once.try_get() == 42);
        CHECK(&once.get([] { return 7; }) == once.try_get());  // computed once: the second maker never runs
        CHECK(calls == 1);
    }

    TEST_CASE("concurrent first callers all see the one value") {
        PublishOnce<int> once;
        std::atomic<int> calls{0};
        const int* seen[4] = {};
        std::thread t[4];
        for (int i = 0; i < 4; ++i) t[i] = std::thread([&, i] { seen[i] = &once.get([&] { return ++calls; }); });
        for (auto& th : t) th.join();
        CHECK(calls == 1);
        for (const int* p : seen) CHECK(p == once.try_get());
    }
}
