// The shared live training log: see live_log.h.
#include "live_log.h"

namespace gpulab::train {

void LiveLog::start(const std::string& engine, bool keep_previous) {
    std::lock_guard lock(mutex_);
    const std::uint64_t v = s_.version;
    std::vector<LiveLane> earlier;
    if (keep_previous) {
        earlier = std::move(s_.earlier);
        if (!s_.engine.empty()) earlier.push_back({s_.engine, std::move(s_.epochs)});
    }
    s_ = LiveSnapshot{};
    s_.earlier = std::move(earlier);
    s_.engine = engine;
    s_.version = v + 1;
}

void LiveLog::add_batch(const LivePoint& p, std::int64_t images, std::int64_t batch_ns, double fraction) {
    std::lock_guard lock(mutex_);
    if (s_.batches.size() >= kMaxBatchPoints) {
        std::size_t w = 0;
        for (std::size_t r = 0; r < s_.batches.size(); r += 2) s_.batches[w++] = s_.batches[r];
        s_.batches.resize(w);
    }
    s_.batches.push_back(p);
    s_.images = images;
    s_.images_per_second = p.seconds > 0 ? static_cast<double>(images) / p.seconds : 0.0;
    s_.last_batch_ns = batch_ns;
    s_.fraction = fraction;
    ++s_.version;
}

void LiveLog::add_epoch(const LivePoint& p) {
    std::lock_guard lock(mutex_);
    s_.epochs.push_back(p);
    ++s_.version;
}

LiveSnapshot LiveLog::snapshot() const {
    std::lock_guard lock(mutex_);
    return s_;
}

std::uint64_t LiveLog::version() const {
    std::lock_guard lock(mutex_);
    return s_.version;
}

}  // namespace gpulab::train
