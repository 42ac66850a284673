// One strict reading of every number on the command line (issue 31, item 3): base 10, the whole
// token, finite. CLI11's own conversion takes "010" as octal 8, "0x10" as 16, "nan" and "inf" as
// numbers, and lets a negative or 20-digit value wrap in an unsigned option; these validators run
// on the text before that conversion, so each refusal names the option and the rule. The ranges
// stay where they were (CLI::Range after these). Checked by tests/cli_tests.cmake, which runs
// every numeric option through one table of bad values.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace gpulab::app {

// A whole number written in base 10: an optional '-', digits, no leading zero (but "0"), at most
// 18 digits (so it fits in 64 bits whatever the option's type).
CLI::Validator strict_integer();
// The same, without the '-' (seeds, counts that an unsigned type would wrap).
CLI::Validator strict_unsigned();
// A finite decimal number: digits with an optional point and exponent ("0.05", "1e-3", "-2");
// no "nan", "inf", hex or octal.
CLI::Validator strict_decimal();

}  // namespace gpulab::app
