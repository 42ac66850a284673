// One reading of numbers written as text, for the command line and for files from elsewhere (a
// comparison CSV): base 10, the whole token, and bounded (issue 43). It is a plain left-to-right
// scan with a length limit checked first: libstdc++'s std::regex recursed once per character and
// overflowed the stack on a 50,000-digit --lr or a 200 KB CSV field. Verified by
// tests/test_number_text.cpp and the bad-value table of tests/cli_tests.cmake.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpulab::core {

// Longer than any number gpulab writes or reads (a double's 17 digits, a sign, a point, an exponent).
inline constexpr std::size_t kMaxNumberTextBytes = 40;

// A whole number in base 10: an optional '-' (when allowed), then "0" or 1 to 18 digits without a
// leading zero (so it fits in 64 bits). No '+', spaces, hex, octal or exponent.
bool is_integer_text(std::string_view s, bool allow_minus);
// A decimal number: an optional '-', digits with an optional point ("12", "0.05", "3.", ".5"), then
// an optional exponent of 1 to 3 digits ("1e-3"). No "nan", "inf", hex or spaces; at most
// kMaxNumberTextBytes characters.
bool is_decimal_text(std::string_view s);
// A refused token as its sentence quotes it: whole up to 48 characters, else its first 40 and its
// length ("1111... (50000 characters)"), so a 50,000-digit argument is not echoed back.
std::string quoted_start(std::string_view s);

}  // namespace gpulab::core
