#include "format.h"

#include <cmath>
#include <cstdio>

namespace gpulab::core {

namespace {
std::string printf_string(const char* fmt, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}
// Three significant digits: enough to read, few enough not to pretend precision we lack.
std::string three_digits(double v, const char* unit) {
    const char* fmt = v >= 100 ? "%.0f %s" : v >= 10 ? "%.1f %s" : "%.2f %s";
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v, unit);
    return buf;
}
}  // namespace

std::string format_duration(int64_t ns) {
    double v = static_cast<double>(ns);
    if (std::llabs(ns) < 1000) return printf_string("%.0f ns", v);
    if (std::llabs(ns) < 1000000) return three_digits(v / 1e3, "us");
    if (std::llabs(ns) < 1000000000) return three_digits(v / 1e6, "ms");
    return three_digits(v / 1e9, "s");
}

std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 4) {
        bytes /= 1024.0;
        ++u;
    }
    if (u == 0) return printf_string("%.0f B", bytes);
    return three_digits(bytes, units[u]);
}

std::string format_gbps(double gbps) { return three_digits(gbps, "GB/s"); }

std::string format_count(int64_t n) {
    std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    int k = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it, ++k) {
        if (k && k % 3 == 0) out.insert(out.begin(), ',');
        out.insert(out.begin(), *it);
    }
    return n < 0 ? "-" + out : out;
}

std::string format_pow2(int64_t n) {
    if (n > 0 && (n & (n - 1)) == 0) {
        int e = 0;
        while ((int64_t{1} << e) < n) ++e;
        return "2^" + std::to_string(e);
    }
    return format_count(n);
}

std::string format_fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string format_ratio(double r) {
    if (!std::isfinite(r)) return "-";
    return r >= 100 ? printf_string("%.0fx", r) : r >= 10 ? printf_string("%.1fx", r) : printf_string("%.2fx", r);
}

}  // namespace gpulab::core
