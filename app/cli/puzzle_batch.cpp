#include "puzzle_batch.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

namespace gpulab::app {

std::vector<puzzles::CheckResult> check_in_parallel(const puzzles::Toolchain& tc, const std::vector<BatchItem>& items,
                                                    int jobs, const puzzles::CheckOptions& options,
                                                    const std::function<void(std::size_t, const puzzles::CheckResult&)>& done) {
    std::vector<puzzles::CheckResult> results(items.size());
    std::atomic<std::size_t> next{0};
    std::mutex lock;
    const unsigned want = jobs > 0 ? static_cast<unsigned>(jobs) : std::max(1u, std::thread::hardware_concurrency());
    const unsigned workers = std::max(1u, std::min<unsigned>(want, static_cast<unsigned>(items.size())));
    const auto work = [&] {
        for (std::size_t i; (i = next++) < items.size();) {
            if (items[i].puzzle == nullptr) {
                results[i].summary = items[i].refused;
            } else {
                results[i] = puzzles::check_submission(tc, *items[i].puzzle, items[i].source, options);
            }
            std::lock_guard<std::mutex> guard(lock);
            if (done) done(i, results[i]);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w) pool.emplace_back(work);
    for (auto& t : pool) t.join();
    return results;
}

}  // namespace gpulab::app
