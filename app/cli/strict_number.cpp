#include "strict_number.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "io/number_text.h"

namespace gpulab::app {

namespace {

std::string check_integer(const std::string& s, bool allow_minus) {
    if (core::is_integer_text(s, allow_minus)) return "";
    return "'" + core::quoted_start(s) + "' is not a whole number written in base 10" + std::string(allow_minus ? "" : " without a sign") +
           " (no leading zeros, hex or exponents; at most 18 digits)";
}

}  // namespace

CLI::Validator strict_integer() {
    return CLI::Validator([](std::string& s) { return check_integer(s, true); }, "INT", "strict integer");
}

CLI::Validator strict_unsigned() {
    return CLI::Validator([](std::string& s) { return check_integer(s, false); }, "UINT", "strict unsigned");
}

CLI::Validator strict_decimal() {
    return CLI::Validator(
        [](std::string& s) -> std::string {
            if (!core::is_decimal_text(s)) {
                return "'" + core::quoted_start(s) + "' is not a decimal number (such as 0.05 or 1e-3; no nan, inf or hex; at most 40 characters)";
            }
            const double v = std::strtod(s.c_str(), nullptr);
            if (!std::isfinite(v)) return "'" + core::quoted_start(s) + "' is too large to be a number here";
            return "";
        },
        "NUMBER", "strict decimal");
}

}  // namespace gpulab::app
