// Results this run of the app has measured, kept per view and keyed by the settings that produced
// them (issue 25): a step entered again, or a later step with the same settings, shows its numbers
// at once, labelled with when they were measured, instead of measuring for seconds again; R still
// measures anew and replaces the entry. Bounded by bytes, oldest dropped first, since a result can
// hold pictures of up to 2^26 floats. Lives for the app's run; keys are plain text (the settings
// written out), so a cache on disk can use the same keys later.
// Verified by tests/test_result_cache.cpp and the GUI test gui.cached_step_shows_without_running.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>

namespace gpulab::core {

template <typename Result>
class ResultCache {
public:
    struct Hit {
        std::shared_ptr<Result> result;
        std::int64_t measured_unix_s = 0;
    };

    // The views pass core::results_cache_bytes() (runtime/memory.h): up to 512 MiB, which holds
    // every step of the activations lesson (its largest, 2^24 floats, keeps three 64 MiB pictures).
    explicit ResultCache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

    // Keeps `result` under `key`, replacing what was there. A result larger than the whole budget is
    // not kept (a later visit measures again), and older entries go until the rest fits.
    void put(const std::string& key, std::shared_ptr<Result> result, std::size_t bytes, std::int64_t measured_unix_s) {
        erase(key);
        if (!result || bytes > max_bytes_) return;
        entries_.push_front({key, {std::move(result), measured_unix_s}, bytes});
        bytes_ += bytes;
        while (bytes_ > max_bytes_ && !entries_.empty()) {
            bytes_ -= entries_.back().bytes;
            entries_.pop_back();
        }
    }

    std::optional<Hit> find(const std::string& key) const {
        for (const Entry& e : entries_)
            if (e.key == key) return e.hit;
        return std::nullopt;
    }

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
    std::list<Entry> entries_;  // newest first; a view keeps a handful, so a list is enough
    std::size_t bytes_ = 0;
    std::size_t max_bytes_;
};

// The grey line under a result shown from the cache: "measured at 10:42 on this computer, earlier in
// this session: R measures again" (local time of `measured_unix_s`).
std::string cached_result_line(std::int64_t measured_unix_s);

}  // namespace gpulab::core
