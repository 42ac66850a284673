#include "machine_info.h"

#include <unistd.h>

#include <ctime>
#include <fstream>
#include <thread>

namespace gpulab::core {

namespace {
std::string trim(std::string s) {
    auto b = s.find_first_not_of(" \t\"");
    auto e = s.find_last_not_of(" \t\"");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
std::string value_after(const std::string& file, const std::string& key, char sep) {
    std::ifstream f(file);
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind(key, 0) == 0) {
            auto p = line.find(sep);
            if (p != std::string::npos) return trim(line.substr(p + 1));
        }
    }
    return "";
}
}  // namespace

const MachineInfo& host_machine() {
    static const MachineInfo info = [] {
        MachineInfo m;
        m.cpu_model = value_after("/proc/cpuinfo", "model name", ':');
        if (m.cpu_model.empty()) m.cpu_model = "unknown CPU";
        m.hardware_threads = static_cast<int>(std::thread::hardware_concurrency());
        m.os = value_after("/etc/os-release", "PRETTY_NAME", '=');
        char host[256] = {};
        if (gethostname(host, sizeof host - 1) == 0) m.hostname = host;
        return m;
    }();
    return info;
}

std::string utc_timestamp(int64_t unix_seconds) {
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

}  // namespace gpulab::core
