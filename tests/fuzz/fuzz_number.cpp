// libFuzzer target for the bounded number reader (core/io/number_text.h): any bytes, never a crash
// or a stack overflow, and whatever it accepts strtod/strtoll read whole (the reader and the
// conversion agree on where a number ends).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "io/number_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace gpulab::core;
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (is_decimal_text(text)) {
        char* end = nullptr;
        (void)std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size()) __builtin_trap();
    }
    for (const bool minus : {false, true}) {
        if (!is_integer_text(text, minus)) continue;
        char* end = nullptr;
        (void)std::strtoll(text.c_str(), &end, 10);
        if (end != text.c_str() + text.size() || text.size() > 19) __builtin_trap();
    }
    return 0;
}
