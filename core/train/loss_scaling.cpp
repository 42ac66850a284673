// Dynamic loss scaling: see loss_scaling.h.
#include "loss_scaling.h"

#include <atomic>
#include <cmath>

#include "runtime/thread_pool.h"

namespace gpulab::train {

bool LossScaler::after_backward(bool finite) {
    if (!finite) {
        ++skipped_steps;
        good_steps = 0;
        // Halving never goes below 1: a gradient that overflows unscaled is the model's problem.
        if (dynamic && scale > 1.0f) scale *= 0.5f;
        return false;
    }
    if (dynamic && ++good_steps >= kGrowthInterval) {
        good_steps = 0;
        if (scale < kMaxScale) scale *= 2.0f;
    }
    return true;
}

bool all_finite(const float* g, std::int64_t n) {
    std::atomic<bool> ok{true};
    cpu::ThreadPool::shared().parallel_for(n, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
            if (!std::isfinite(g[i])) {
                ok.store(false, std::memory_order_relaxed);
                return;
            }
        }
    });
    return ok.load();
}

void scale_in_place(float* g, std::int64_t n, float factor) {
    cpu::ThreadPool::shared().parallel_for(n, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) g[i] *= factor;
    });
}

}  // namespace gpulab::train
