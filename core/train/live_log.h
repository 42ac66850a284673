// What a training run on the worker thread shows while it runs, shared with the UI thread: every
// batch's loss and accuracy, the epochs' test accuracy, images/s and the last batch's time. The
// worker appends, the UI copies a snapshot each frame; one mutex, held only for a copy. (JobRunner's
// completion hands over the final result; this is the live part before it.) Plain C++ so the tests,
// ThreadSanitizer included, see the same object. Verified by tests/test_train_race.cpp.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace gpulab::train {

struct LivePoint {
    double seconds = 0.0;  // training time since this lane started
    double loss = 0.0;
    double accuracy = 0.0;  // of this batch (train) or of the test set (epoch points)
};

// A lane that finished earlier in the same run (the race), kept so the plot shows it beside the live one.
struct LiveLane {
    std::string engine;
    std::vector<LivePoint> epochs;
};

struct LiveSnapshot {
    std::vector<LiveLane> earlier;  // finished lanes of this run, oldest first
    std::string engine;           // the lane training now
    std::vector<LivePoint> batches;  // one per batch: loss and the batch's accuracy
    std::vector<LivePoint> epochs;   // one per finished epoch: mean loss and test accuracy
    std::int64_t images = 0;
    double images_per_second = 0.0;
    std::int64_t last_batch_ns = 0;
    double fraction = 0.0;        // of the planned work, for the progress bar
    std::uint64_t version = 0;    // grows with every change
};

class LiveLog {
public:
    // Starts a new lane: clears the curves; `keep_previous` (the race's next engine) first moves the
    // lane that just ended into `earlier`.
    void start(const std::string& engine, bool keep_previous = false);
    void add_batch(const LivePoint& p, std::int64_t images, std::int64_t batch_ns, double fraction);
    void add_epoch(const LivePoint& p);
    LiveSnapshot snapshot() const;
    std::uint64_t version() const;

    // Batches beyond this are thinned (every second one dropped) so a long run stays cheap to draw.
    static constexpr std::size_t kMaxBatchPoints = 4000;

private:
    mutable std::mutex mutex_;
    LiveSnapshot s_;
};

}  // namespace gpulab::train
