// See number_text.h. Written out by hand rather than with std::regex: its backtracking matcher
// recurses per character (a stack overflow on long input), and these two shapes are a few lines.
#include "number_text.h"

namespace gpulab::core {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// How many digits start `s` at `at`.
std::size_t digits_at(std::string_view s, std::size_t at) {
    std::size_t n = 0;
    while (at + n < s.size() && digit(s[at + n])) ++n;
    return n;
}

}  // namespace

bool is_integer_text(std::string_view s, bool allow_minus) {
    if (s.size() > kMaxNumberTextBytes) return false;
    std::size_t at = 0;
    if (allow_minus && !s.empty() && s[0] == '-') at = 1;
    const std::size_t n = digits_at(s, at);
    if (n == 0 || at + n != s.size()) return false;
    if (n > 18) return false;
    return n == 1 || s[at] != '0';
}

bool is_decimal_text(std::string_view s) {
    if (s.empty() || s.size() > kMaxNumberTextBytes) return false;
    std::size_t at = s[0] == '-' ? 1 : 0;
    const std::size_t whole = digits_at(s, at);
    at += whole;
    std::size_t fraction = 0;
    if (at < s.size() && s[at] == '.') {
        fraction = digits_at(s, at + 1);
        at += 1 + fraction;
    }
    if (whole == 0 && fraction == 0) return false;  // ".", "-", "-." or nothing
    if (at < s.size() && (s[at] == 'e' || s[at] == 'E')) {
        ++at;
        if (at < s.size() && (s[at] == '-' || s[at] == '+')) ++at;
        const std::size_t exponent = digits_at(s, at);
        if (exponent == 0 || exponent > 3) return false;
        at += exponent;
    }
    return at == s.size();
}

std::string quoted_start(std::string_view s) {
    if (s.size() <= 48) return std::string(s);
    return std::string(s.substr(0, 40)) + "... (" + std::to_string(s.size()) + " characters)";
}

}  // namespace gpulab::core
