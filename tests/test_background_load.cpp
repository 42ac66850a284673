// A stored result read off the UI thread (app/views/stored_results.h, BackgroundLoad; issue 41):
// the frame that starts the read does not wait for it, a later poll gives the result and keeps it in
// the cache, a key the store lacks says so, and a read no longer wanted is dropped.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "views/stored_results.h"

using namespace gpulab;

namespace {

// A backing whose reads take `delay` and find only the key "stored" (holding 42).
core::ResultCache<int>::Backing slow_backing(std::chrono::milliseconds delay, std::shared_ptr<std::atomic<int>> reads) {
    core::ResultCache<int>::Backing b;
    b.load = [delay, reads](const std::string& key) -> std::optional<std::pair<core::ResultCache<int>::Hit, std::size_t>> {
        std::this_thread::sleep_for(delay);
        ++*reads;
        if (key != "stored") return std::nullopt;
        core::ResultCache<int>::Hit hit;
        hit.result = std::make_shared<int>(42);
        hit.measured_unix_s = 1700000000;
        hit.origin.kind = core::CacheOrigin::Kind::EarlierRun;
        return std::make_pair(hit, sizeof(int));
    };
    return b;
}

template <class Poll>
auto poll_until_done(Poll poll) {
    for (int i = 0; i < 500; ++i) {
        if (auto r = poll()) return r;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    FAIL("the read never finished");
    return decltype(poll()){};
}

}  // namespace

TEST_CASE("a stored result is read on its own thread - found - missing or dropped when no longer wanted") {
    auto reads = std::make_shared<std::atomic<int>>(0);
    core::ResultCache<int> cache(1 << 20);
    app::BackgroundLoad<int> load;
    CHECK_FALSE(load.start(cache, "stored"));  // no backing: nothing to read, the view measures

    cache.set_backing(slow_backing(std::chrono::milliseconds(100), reads));
    const auto started = std::chrono::steady_clock::now();
    REQUIRE(load.start(cache, "stored"));
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds(50));  // the frame did not wait
    CHECK(load.pending());
    CHECK_FALSE(load.poll(cache));  // still reading
    const auto found = poll_until_done([&] { return load.poll(cache); });
    REQUIRE(*found);
    CHECK(*(*found)->result == 42);
    CHECK((*found)->origin.kind == core::CacheOrigin::Kind::EarlierRun);
    CHECK_FALSE(load.pending());
    // Kept in the cache: the next visit finds it without a read.
    REQUIRE(cache.find_in_memory("stored"));
    CHECK(reads->load() == 1);

    // A key the store lacks: the outcome says so (the view then measures).
    REQUIRE(load.start(cache, "never measured"));
    const auto missing = poll_until_done([&] { return load.poll(cache); });
    CHECK_FALSE(*missing);

    // A read left behind (the student moved on): dropped, and the new one answers for its own key.
    cache.erase("stored");
    REQUIRE(load.start(cache, "stored"));
    load.forget();
    CHECK_FALSE(load.pending());
    REQUIRE(load.start(cache, "never measured"));
    CHECK(load.key() == "never measured");
    const auto second = poll_until_done([&] { return load.poll(cache); });
    CHECK_FALSE(*second);
    CHECK_FALSE(cache.find_in_memory("stored"));  // the dropped read kept nothing
}
