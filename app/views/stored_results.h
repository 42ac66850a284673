// A view's results cache backed by the results store on disk (issue 25): what a view measures is
// written (on the store's writer thread) under the view's name and the settings key, and a step
// whose settings this computer measured in an earlier run of gpulab, or `gpulab prerun` measured,
// or another machine's prerun that was imported, shows at once with a line saying which.
// The window and `gpulab prerun` switch it on (enable_stored_results); `gpulab export` and the
// tests that expect a step to measure leave it off, so they always measure.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "io/result_store.h"
#include "measure/result_cache.h"
#include "workloads/workload_archive.h"

namespace gpulab::app {

// This binary and machine, as the store names them (views/stored_results.cpp).
const core::StoreIdentity& app_store_identity();

// On for the rest of the process; before that, views connect no backing. With `read` false the
// views write what they measure but find nothing (`gpulab prerun --fresh` measures every step).
void enable_stored_results(bool on, bool read = true);
bool stored_results_enabled();
bool stored_results_readable();
// The store, or null when off or no cache folder is known.
core::ResultStore* stored_results();

// Connects `cache` to the store when it is on. `format` is the view's payload format: bump it when
// the measurement type or its serialize functions change, so older files are passed over.
// `bytes_of` is the size the in-memory cache budgets for a result loaded from disk. A result too
// large for one entry is stored as `fit` makes it (a copy without what can be made again), or not
// at all; `after_load` makes the rest again when it is read (off the UI thread where BackgroundLoad
// reads), false when it cannot (the step then measures).
template <class Result>
void back_with_stored_results(
    core::ResultCache<Result>& cache, std::string view, int format, std::function<std::size_t(const Result&)> bytes_of,
    std::function<std::shared_ptr<const std::remove_const_t<Result>>(const Result&)> fit = {},
    std::function<bool(std::remove_const_t<Result>&)> after_load = {}) {
    core::ResultStore* store = stored_results();
    if (!store) return;
    using Cache = core::ResultCache<Result>;
    typename Cache::Backing backing;
    backing.save = [store, view, format, bytes_of, fit](const std::string& key, const std::shared_ptr<Result>& result,
                                                        std::int64_t measured_unix_s) {
        // The result is shared and never changed after it is cached: the writer thread reads it.
        std::shared_ptr<const std::remove_const_t<Result>> keep = result;
        if (static_cast<std::int64_t>(bytes_of(*result)) > core::ResultStore::kMaxEntryBytes) {
            keep = fit ? fit(*result) : nullptr;
            if (!keep) return;  // too large and nothing to leave out: measured again in seconds
        }
        store->save_later(view, format, key, [keep] { return core::to_bytes(*keep); }, measured_unix_s);
    };
    backing.load = [store, view, format, bytes_of, after_load](const std::string& key)
        -> std::optional<std::pair<typename Cache::Hit, std::size_t>> {
        if (!stored_results_readable()) return std::nullopt;
        std::optional<core::StoredResult> stored = store->load(view, format, key);
        if (!stored) return std::nullopt;
        std::shared_ptr<std::remove_const_t<Result>> value = core::from_bytes<std::remove_const_t<Result>>(stored->payload);
        if (!value) return std::nullopt;  // another layout of the same format number: measure again
        if (after_load && !after_load(*value)) return std::nullopt;
        typename Cache::Hit hit;
        hit.result = std::move(value);
        hit.measured_unix_s = stored->measured_unix_s;
        hit.origin.kind = stored->this_machine ? core::CacheOrigin::Kind::EarlierRun : core::CacheOrigin::Kind::OtherMachine;
        hit.origin.machine_label = stored->machine_label;
        const std::size_t bytes = bytes_of(*hit.result);
        return std::make_pair(std::move(hit), bytes);
    };
    cache.set_backing(std::move(backing));
}

// A stored result read off the UI thread (issue 41): a 50 MB result took 2-4 s to read and decode
// on a busy laptop, and the window, and a clicker's presses, froze meanwhile. start() reads it on a
// thread of its own; poll(), once a frame, gives the outcome when the read has finished. A read
// that is no longer wanted (another step) finishes on its own and is dropped.
template <class Result>
class BackgroundLoad {
public:
    using Cache = core::ResultCache<Result>;
    using Hit = typename Cache::Hit;

    ~BackgroundLoad() = default;  // a read still running is waited for (a disk read, not a measurement)

    // False when the cache has no backing (the store is off): nothing to read, the view measures.
    bool start(const Cache& cache, std::string key) {
        if (!cache.backing().load) return false;
        if (running_.valid()) stale_.push_back(std::move(running_));
        key_ = std::move(key);
        running_ = std::async(std::launch::async, [load = cache.backing().load, key = key_] { return load(key); });
        return true;
    }
    void forget() {
        if (running_.valid()) stale_.push_back(std::move(running_));
    }
    bool pending() const { return running_.valid(); }
    const std::string& key() const { return key_; }

    // Once the read has finished: {hit} when it found one (now kept in `cache`), {nullopt} when the
    // store has none for the key. nullopt while it reads, or when nothing was started.
    std::optional<std::optional<Hit>> poll(Cache& cache) {
        std::erase_if(stale_, [](std::future<Loaded>& f) { return ready(f); });
        if (!running_.valid() || !ready(running_)) return std::nullopt;
        std::optional<std::pair<Hit, std::size_t>> loaded = running_.get();
        if (!loaded || !loaded->first.result) return std::optional<Hit>{};
        cache.keep_loaded(key_, loaded->first, loaded->second);
        return std::optional<Hit>{std::move(loaded->first)};
    }

private:
    using Loaded = std::optional<std::pair<Hit, std::size_t>>;
    static bool ready(std::future<Loaded>& f) { return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
    std::string key_;
    std::future<Loaded> running_;
    std::vector<std::future<Loaded>> stale_;
};

}  // namespace gpulab::app
