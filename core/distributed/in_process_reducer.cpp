// Workers as threads of one process: see in_process_reducer.h.
#include "in_process_reducer.h"

#include <stdexcept>
#include <string>

namespace gpulab::distributed {

namespace {

class InProcessReducer final : public GradientReducer {
public:
    InProcessReducer(InProcessGroup& group, int rank) : group_(group), rank_(rank) {}
    int rank() const override { return rank_; }
    int workers() const override { return group_.workers(); }

    void sum(std::span<float> values) override {
        const std::vector<std::vector<double>> all = group_.exchange(rank_, {values.begin(), values.end()});
        for (std::size_t i = 0; i < values.size(); ++i) {
            float s = 0.0f;  // in float, rank after rank: the order a small MPI_Allreduce adds in
            for (const std::vector<double>& w : all) s += static_cast<float>(w[i]);
            values[i] = s;
        }
    }
    void sum(std::span<double> values) override {
        const std::vector<std::vector<double>> all = group_.exchange(rank_, {values.begin(), values.end()});
        for (std::size_t i = 0; i < values.size(); ++i) {
            double s = 0.0;
            for (const std::vector<double>& w : all) s += w[i];
            values[i] = s;
        }
    }
    std::vector<double> gather(std::span<const double> mine) override {
        std::vector<double> out;
        for (const std::vector<double>& w : group_.exchange(rank_, {mine.begin(), mine.end()}))
            out.insert(out.end(), w.begin(), w.end());
        return out;
    }

private:
    InProcessGroup& group_;
    int rank_;
};

}  // namespace

InProcessGroup::InProcessGroup(int workers) : workers_(workers), deposits_(static_cast<std::size_t>(workers)) {
    if (workers < 1) throw std::invalid_argument("an in-process group needs at least one worker");
}

std::unique_ptr<GradientReducer> InProcessGroup::member(int rank) {
    if (rank < 0 || rank >= workers_) throw std::invalid_argument("no rank " + std::to_string(rank) + " in this group");
    return std::make_unique<InProcessReducer>(*this, rank);
}

std::vector<std::vector<double>> InProcessGroup::exchange(int rank, std::vector<double> mine) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !reading_; });  // the last round is still being read
    deposits_[static_cast<std::size_t>(rank)] = std::move(mine);
    if (++arrived_ == workers_) {
        reading_ = true;
        changed_.notify_all();
    } else {
        changed_.wait(lock, [&] { return reading_; });
    }
    std::vector<std::vector<double>> all = deposits_;
    if (++left_ == workers_) {
        arrived_ = left_ = 0;
        reading_ = false;
        changed_.notify_all();
    }
    return all;
}

}  // namespace gpulab::distributed
