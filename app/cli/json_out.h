// Minimal JSON output for `gpulab bench --json`: strings escaped, non-finite numbers as null.
// Hand-written because only flat records are printed and Debian's JSON libraries would add a
// dependency for two functions.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "backends/simd/simd_math.h"

namespace gpulab::app {

inline std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\', out += c;
        else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
        else out += c;
    }
    return out + "\"";
}

inline std::string json_number(double v) {
    if (!std::isfinite(v)) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

// Prints one record of a JSON array: "[" handling is the caller's; `first` tracks the comma. Every
// record says which CPU instruction set the CPU backends ran (GPULAB_ISA can force one).
inline void json_record(bool& first, const std::string& body) {
    std::printf("%s\n  {%s, \"cpu_isa\": %s, \"cpu_isa_forced\": %s}", first ? "" : ",", body.c_str(),
                json_string(std::string(cpu::simd_isa())).c_str(), cpu::isa_choice().forced ? "true" : "false");
    first = false;
}

}  // namespace gpulab::app
