#include "strict_number.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>

namespace gpulab::app {

namespace {

std::string check_integer(const std::string& s, bool allow_minus) {
    static const std::regex signed_re(R"(^-?(0|[1-9][0-9]{0,17})$)");
    static const std::regex unsigned_re(R"(^(0|[1-9][0-9]{0,17})$)");
    if (std::regex_match(s, allow_minus ? signed_re : unsigned_re)) return "";
    return "'" + s + "' is not a whole number written in base 10" + std::string(allow_minus ? "" : " without a sign") +
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
            static const std::regex re(R"(^-?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]{1,3})?$)");
            if (!std::regex_match(s, re)) {
                return "'" + s + "' is not a decimal number (such as 0.05 or 1e-3; no nan, inf or hex)";
            }
            const double v = std::strtod(s.c_str(), nullptr);
            if (!std::isfinite(v)) return "'" + s + "' is too large to be a number here";
            return "";
        },
        "NUMBER", "strict decimal");
}

}  // namespace gpulab::app
