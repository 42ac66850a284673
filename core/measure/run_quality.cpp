// See run_quality.h.
#include "run_quality.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <sstream>

#include "clock.h"

namespace gpulab::core {

namespace {

// /proc/stat's first line: "cpu  user nice system idle iowait irq softirq steal guest guest_nice",
// in clock ticks. Busy is everything but idle and iowait (guest time is already inside user).
bool read_system_busy_ns(int64_t& busy_ns) {
    std::ifstream f("/proc/stat");
    std::string line;
    if (!f || !std::getline(f, line) || line.rfind("cpu ", 0) != 0) return false;
    std::istringstream in(line.substr(4));
    long long v[8] = {};
    for (long long& x : v)
        if (!(in >> x)) return false;
    const long tick = sysconf(_SC_CLK_TCK);
    if (tick <= 0) return false;
    const long long busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    busy_ns = busy_ticks * (1'000'000'000LL / tick);
    return true;
}

}  // namespace

CpuSample sample_cpu() {
    CpuSample s;
    s.wall_ns = now_ns();
    timespec ts{};
    if (!read_system_busy_ns(s.system_busy_ns) || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return s;
    s.self_cpu_ns = static_cast<int64_t>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
    s.ok = true;
    return s;
}

RunQuality quality_between(const CpuSample& before, const CpuSample& after, int cpus) {
    RunQuality q;
    q.cpus = cpus;
    const int64_t wall = after.wall_ns - before.wall_ns;
    q.seconds = static_cast<double>(std::max<int64_t>(wall, 0)) * 1e-9;
    if (!before.ok || !after.ok || cpus <= 0 || wall < kShortestJudgedRunNs) return q;
    const int64_t others = (after.system_busy_ns - before.system_busy_ns) - (after.self_cpu_ns - before.self_cpu_ns);
    q.others_share = std::clamp(static_cast<double>(others) / (static_cast<double>(wall) * cpus), 0.0, 1.0);
    q.known = true;
    return q;
}

namespace {
std::mutex g_last_mutex;
RunQuality g_last;
}  // namespace

void set_last_run_quality(const RunQuality& q) {
    std::lock_guard lock(g_last_mutex);
    g_last = q;
}

RunQuality last_run_quality() {
    std::lock_guard lock(g_last_mutex);
    return g_last;
}

std::string RunQuality::warning() const {
    if (!busy()) return "";
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "Other programs used %.0f %% of the %d CPUs during this run: slower than this computer can do. "
                  "R again when it is idle.",
                  100.0 * others_share, cpus);
    return buf;
}

std::string RunQuality::summary() const {
    std::string s;
    char buf[160];
    if (known)
        std::snprintf(buf, sizeof buf, "other programs used %.0f %% of the %d CPUs during the %.1f s run",
                      100.0 * others_share, cpus, seconds);
    else
        std::snprintf(buf, sizeof buf, "other programs' share of the CPUs not known (a %.2f s run%s)", seconds,
                      seconds * 1e9 < kShortestJudgedRunNs ? ", too short to judge" : "");
    s = buf;
    if (frames_drawn >= 0) s += "; the window drew " + std::to_string(frames_drawn) + " frames meanwhile";
    else s += "; headless, nothing drawn meanwhile";
    return s;
}

}  // namespace gpulab::core
