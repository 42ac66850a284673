#include "result_cache.h"

#include <ctime>

namespace gpulab::core {

std::string cached_result_line(std::int64_t measured_unix_s, const CacheOrigin& origin) {
    const std::time_t t = static_cast<std::time_t>(measured_unix_s);
    std::tm local{};
    char time[16] = "earlier", date[16] = "an earlier day";
    if (localtime_r(&t, &local)) {
        std::strftime(time, sizeof time, "%H:%M:%S", &local);
        std::strftime(date, sizeof date, "%Y-%m-%d", &local);
    }
    switch (origin.kind) {
        case CacheOrigin::Kind::ThisSession:
            return std::string("measured at ") + time + " on this computer, earlier in this session: R measures again";
        case CacheOrigin::Kind::EarlierRun:
            return std::string("measured on ") + date + " at " + time +
                   " on this computer, by an earlier run of gpulab: R measures again";
        case CacheOrigin::Kind::OtherMachine:
            return "measured on " + origin.machine_label + " on " + date + " at " + time +
                   ", not on this computer: R measures here";
    }
    return "";
}

}  // namespace gpulab::core
