// Per-step timings of data-parallel training: see step_timing.h.
#include "step_timing.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpulab::distributed {

WorkerSummary summarise(int rank, std::span<const StepTiming> steps) {
    WorkerSummary s;
    s.rank = rank;
    s.steps = static_cast<std::int64_t>(steps.size());
    for (const StepTiming& t : steps) {
        s.compute_ns += t.compute_ns;
        s.wait_ns += t.wait_ns;
        s.allreduce_ns += t.allreduce_ns;
    }
    auto median_of = [&](std::int64_t StepTiming::*field) {
        std::vector<std::int64_t> v;
        for (const StepTiming& t : steps) v.push_back(t.*field);
        if (v.empty()) return std::int64_t{0};
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        return v[v.size() / 2];  // the upper median for an even count: a step that happened
    };
    s.median = {median_of(&StepTiming::compute_ns), median_of(&StepTiming::wait_ns), median_of(&StepTiming::allreduce_ns)};
    return s;
}

std::vector<double> pack_timings(std::span<const StepTiming> steps) {
    std::vector<double> out;
    out.reserve(steps.size() * 3);
    for (const StepTiming& t : steps) {
        // Doubles hold whole nanoseconds exactly up to 2^53 ns (104 days).
        out.push_back(static_cast<double>(t.compute_ns));
        out.push_back(static_cast<double>(t.wait_ns));
        out.push_back(static_cast<double>(t.allreduce_ns));
    }
    return out;
}

std::vector<std::vector<StepTiming>> unpack_timings(std::span<const double> gathered, int workers) {
    if (workers < 1 || gathered.size() % (3 * static_cast<std::size_t>(workers)) != 0)
        throw std::invalid_argument("gathered timings do not split into " + std::to_string(workers) + " workers");
    const std::size_t steps = gathered.size() / 3 / static_cast<std::size_t>(workers);
    std::vector<std::vector<StepTiming>> out(static_cast<std::size_t>(workers));
    for (std::size_t w = 0; w < out.size(); ++w) {
        for (std::size_t s = 0; s < steps; ++s) {
            const double* v = gathered.data() + (w * steps + s) * 3;
            out[w].push_back({static_cast<std::int64_t>(v[0]), static_cast<std::int64_t>(v[1]),
                              static_cast<std::int64_t>(v[2])});
        }
    }
    return out;
}

double scaling_efficiency(double images_per_s, int workers, double one_worker_images_per_s) {
    if (workers < 1 || images_per_s <= 0.0 || one_worker_images_per_s <= 0.0) return 0.0;
    return images_per_s / (static_cast<double>(workers) * one_worker_images_per_s);
}

}  // namespace gpulab::distributed
