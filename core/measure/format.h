// The one place durations, sizes and rates become text, so the app, the CLI, CSV and PNG
// captions all say the same thing the same way.
#pragma once

#include <cstdint>
#include <string>

namespace gpulab::core {

std::string format_duration(int64_t ns);     // "812 ns", "3.41 us", "12.7 ms", "1.25 s"
std::string format_bytes(double bytes);      // "4.00 MiB"
std::string format_gbps(double gbps);        // "23.4 GB/s"
std::string format_count(int64_t n);         // "1,048,576"
std::string format_pow2(int64_t n);          // "2^20" when n is a power of two, else format_count(n)
std::string format_ratio(double r);          // "12.3x"
std::string format_fixed(double v, int digits);  // "3.142" for (3.14159, 3)
// One CSV field: as is, or quoted with inner quotes doubled when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);

}  // namespace gpulab::core
