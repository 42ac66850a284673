// What machine a measurement came from, for captions and CSV headers: numbers from different
// machines must never be mixed up.
#pragma once

#include <cstdint>
#include <string>

namespace gpulab::core {

struct MachineInfo {
    std::string cpu_model;  // from /proc/cpuinfo "model name"
    int hardware_threads = 0;
    std::string os;         // "Debian GNU/Linux 12 (bookworm)"
    std::string hostname;
};

const MachineInfo& host_machine();  // read once

// "2026-11-22 10:15 UTC"
std::string utc_timestamp(int64_t unix_seconds);

}  // namespace gpulab::core
