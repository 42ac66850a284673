#include "result_cache.h"

#include <ctime>

namespace gpulab::core {

std::string cached_result_line(std::int64_t measured_unix_s) {
    const std::time_t t = static_cast<std::time_t>(measured_unix_s);
    std::tm local{};
    char when[16] = "earlier";
    if (localtime_r(&t, &local)) std::strftime(when, sizeof when, "%H:%M:%S", &local);
    return std::string("measured at ") + when + " on this computer, earlier in this session: R measures again";
}

}  // namespace gpulab::core
