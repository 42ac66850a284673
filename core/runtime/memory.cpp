#include "memory.h"

#include <algorithm>

#include <fstream>
#include <sstream>

#include "measure/format.h"

namespace gpulab::core {

std::size_t available_host_memory() {
    std::ifstream f("/proc/meminfo");
    std::string key;
    std::size_t kib = 0;
    std::string unit;
    while (f >> key >> kib >> unit) {
        if (key == "MemAvailable:") return kib * 1024;
    }
    return 0;
}

Availability check_host_allocation(std::size_t bytes, double fraction) {
    std::size_t avail = available_host_memory();
    if (avail == 0) return {true, "available memory unknown; trying"};
    if (static_cast<double>(bytes) <= fraction * static_cast<double>(avail)) return {true, ""};
    return {false, "needs " + format_bytes(static_cast<double>(bytes)) + " of host memory but only " +
                       format_bytes(static_cast<double>(avail)) + " is available"};
}

std::size_t results_cache_bytes() {
    constexpr std::size_t kMin = std::size_t{64} << 20, kMax = std::size_t{512} << 20;
    const std::size_t available = available_host_memory();
    if (available == 0) return kMin;
    return std::clamp(available / 8, kMin, kMax);
}

}  // namespace gpulab::core
