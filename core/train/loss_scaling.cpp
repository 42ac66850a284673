// Dynamic loss scaling: see loss_scaling.h.
#include "loss_scaling.h"

#include <atomic>
#include <cmath>
#include <sstream>

#include "io/image_io.h"
#include "measure/format.h"
#include "runtime/thread_pool.h"

namespace gpulab::train {

bool LossScaler::after_backward(bool finite) {
    ++steps;
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

std::string loss_scale_text(float scale) {
    int e = 0;
    const float mantissa = std::frexp(scale, &e);  // scale = mantissa * 2^e, mantissa in [0.5, 1)
    if (mantissa == 0.5f) return "2^" + std::to_string(e - 1);
    std::ostringstream out;
    out << scale;
    return out.str();
}

std::string describe_loss_scale(const LossScaler& s) {
    return "loss scale " + loss_scale_text(s.scale) + (s.dynamic ? " (dynamic)" : " (fixed)") + ", " +
           std::to_string(s.skipped_steps) + " of " + std::to_string(s.steps) + " updates skipped";
}

float check_loss_scale(float fixed_scale) {
    const bool power_of_two = fixed_scale >= 1.0f && fixed_scale <= LossScaler::kMaxScale &&
                              std::ldexp(1.0f, std::ilogb(fixed_scale)) == fixed_scale;
    if (fixed_scale == 0.0f || power_of_two) return fixed_scale;
    throw core::InputError("the loss scale must be 0 (dynamic) or a power of two from 1 to 16,777,216 (2^24), got " +
                           core::format_fixed(fixed_scale, 3));
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
