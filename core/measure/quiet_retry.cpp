// See quiet_retry.h.
#include "quiet_retry.h"

namespace gpulab::core {

void QuietRetry::run_finished(const std::string& step, const RunQuality& q) {
    if (step != step_) {
        step_ = step;
        retries_ = 0;
    }
    const bool repeat = q.busy() && q.seconds * 1e9 <= static_cast<double>(s_.longest_run_ns) && retries_ < s_.retries_per_step;
    watching_ = repeat;
    last_ = {};
    quiet_since_ns_ = -1;
}

bool QuietRetry::should_rerun(const CpuSample& now, int cpus) {
    if (!watching_ || !now.ok) return false;
    if (!last_.ok) {
        last_ = now;
        return false;
    }
    if (now.wall_ns - last_.wall_ns < s_.sample_every_ns) return false;
    const RunQuality q = quality_between(last_, now, cpus);
    const std::int64_t from = last_.wall_ns;
    last_ = now;
    if (!q.known || q.others_share >= s_.quiet_share) {
        quiet_since_ns_ = -1;
        return false;
    }
    if (quiet_since_ns_ < 0) quiet_since_ns_ = from;
    if (now.wall_ns - quiet_since_ns_ < s_.quiet_for_ns) return false;
    watching_ = false;
    ++retries_;
    return true;
}

}  // namespace gpulab::core
