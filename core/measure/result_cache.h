// Results this run of the app has measured, kept per view and keyed by the settings that produced
// them (issue 25): a step entered again, or a later step with the same settings, shows its numbers
// at once, labelled with when they were measured, instead of measuring for seconds again; R still
// measures anew and replaces the entry. Bounded by bytes, oldest dropped first, since a result can
// hold pictures of up to 2^26 floats. Keys are plain text (the settings written out). Behind it a
// view may set a Backing: the results store on disk (io/result_store.h), which a miss here asks
// and every put feeds, so results outlive the app's run and `gpulab prerun` can fill them.
// Verified by tests/test_result_cache.cpp and the GUI tests gui.cached_step_shows_without_running
// and gui.stored_step_shows_in_next_run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace gpulab::core {

// Where a cached result came from, for the line under it.
struct CacheOrigin {
    enum class Kind { ThisSession, EarlierRun, OtherMachine } kind = Kind::ThisSession;
    std::string machine_label;  // OtherMachine: "<cpu>, <gpu>" of the computer that measured it
};

template <typename Result>
class ResultCache {
public:
    struct Hit {
        std::shared_ptr<Result> result;
        std::int64_t measured_unix_s = 0;
        CacheOrigin origin;
    };
    // The longer-lived copy behind this cache: `load` gives a hit and its size in bytes, or nullopt.
    struct Backing {
        std::function<void(const std::string& key, const std::shared_ptr<Result>& result, std::int64_t measured_unix_s)> save;
        std::function<std::optional<std::pair<Hit, std::size_t>>(const std::string& key)> load;
    };

    // The views pass core::results_cache_bytes() (runtime/memory.h): up to 512 MiB, which holds
    // every step of the activations lesson (its largest, 2^24 floats, keeps three 64 MiB pictures).
    explicit ResultCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

    void set_backing(Backing backing) { backing_ = std::move(backing); }

    // Keeps `result` under `key`, replacing what was there, and hands it to the backing. A result
    // larger than the whole budget is not kept here (a later visit asks the backing or measures
    // again), and older entries go until the rest fits.
    void put(const std::string& key, std::shared_ptr<Result> result, std::size_t bytes, std::int64_t measured_unix_s) {
        if (result && backing_.save) backing_.save(key, result, measured_unix_s);
        keep(key, {std::move(result), measured_unix_s, {}}, bytes);
    }

    // This cache's entry, else the backing's (kept here from then on).
    std::optional<Hit> find(const std::string& key) {
        for (const Entry& e : entries_)
            if (e.key == key) return e.hit;
        if (!backing_.load) return std::nullopt;
        std::optional<std::pair<Hit, std::size_t>> stored = backing_.load(key);
        if (!stored || !stored->first.result) return std::nullopt;
        keep(key, stored->first, stored->second);
        return stored->first;
    }

    // Only what this cache holds, never the backing: for a frame that must not wait for a disk
    // (app/views/stored_results.h's BackgroundLoad reads the backing on another thread).
    std::optional<Hit> find_in_memory(const std::string& key) const {
        for (const Entry& e : entries_)
            if (e.key == key) return e.hit;
        return std::nullopt;
    }
    const Backing& backing() const { return backing_; }
    // A hit the backing gave on another thread, kept here as find() keeps one.
    void keep_loaded(const std::string& key, Hit hit, std::size_t bytes) { keep(key, std::move(hit), bytes); }

    void erase(const std::string& key) {
        for (auto it = entries_.begin(); it != entries_.end(); ++it) {
            if (it->key != key) continue;
            bytes_ -= it->bytes;
            entries_.erase(it);
            return;
        }
    }

    std::size_t size() const { return entries_.size(); }
    std::size_t bytes() const { return bytes_; }

private:
    struct Entry {
        std::string key;
        Hit hit;
        std::size_t bytes = 0;
    };

    void keep(const std::string& key, Hit hit, std::size_t bytes) {
        erase(key);
        std::shared_ptr<Result>& result = hit.result;
        if (!result || bytes > max_bytes_) return;
        entries_.push_front({key, std::move(hit), bytes});
        bytes_ += bytes;
        while (bytes_ > max_bytes_ && !entries_.empty()) {
            bytes_ -= entries_.back().bytes;
            entries_.pop_back();
        }
    }

    Backing backing_;
    std::list<Entry> entries_;  // newest first; a view keeps a handful, so a list is enough
    std::size_t bytes_ = 0;
    std::size_t max_bytes_;
};

// The grey line under a result shown from the cache, in local time: "measured at 10:42:05 on this
// computer, earlier in this session: R measures again"; from an earlier run of gpulab, the date as
// well; from another machine, "measured on <machine> on 2026-11-25 at 10:42, not on this computer:
// R measures here".
std::string cached_result_line(std::int64_t measured_unix_s, const CacheOrigin& origin = {});

}  // namespace gpulab::core
