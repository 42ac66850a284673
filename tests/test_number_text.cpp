// The bounded number reader (core/io/number_text.h): the shapes the command line and comparison
// files accept, the ones they refuse, and input far longer than any number, read without recursion
// (a 1 MB token once overflowed the stack of the std::regex that read it, issue 43).
#include <doctest/doctest.h>

#include <string>

#include "io/number_text.h"

using namespace gpulab::core;

TEST_SUITE("io") {
    TEST_CASE("whole numbers: base 10, no leading zero, at most 18 digits, a sign only where allowed") {
        for (const char* ok : {"0", "7", "10", "123456789012345678"}) {
            CHECK_MESSAGE(is_integer_text(ok, false), ok);
            CHECK_MESSAGE(is_integer_text(ok, true), ok);
        }
        CHECK(is_integer_text("-5", true));
        CHECK_FALSE(is_integer_text("-5", false));
        for (const char* bad : {"", "-", "+5", "010", "08", "0x10", "1e3", "nan", " 5", "5 ", "1.0", "1234567890123456789", "--5"})
            CHECK_MESSAGE(!is_integer_text(bad, true), bad);
    }

    TEST_CASE("decimals: digits, an optional point and a short exponent, and nothing else") {
        for (const char* ok : {"0", "0.05", "1e-3", "-2", "3.", ".5", "-.5", "1E+10", "2.5e300", "0005"})
            CHECK_MESSAGE(is_decimal_text(ok), ok);
        for (const char* bad : {"", ".", "-", "-.", "e5", "1e", "1e1234", "nan", "inf", "0x1p3", "1,5", "1.2.3", " 1", "1 "})
            CHECK_MESSAGE(!is_decimal_text(bad), bad);
        CHECK(is_decimal_text(std::string(kMaxNumberTextBytes, '1')));
        CHECK_FALSE(is_decimal_text(std::string(kMaxNumberTextBytes + 1, '1')));
    }

    TEST_CASE("a megabyte of digits is refused at once, without recursing over it") {
        const std::string huge(1 << 20, '9');
        CHECK_FALSE(is_integer_text(huge, true));
        CHECK_FALSE(is_decimal_text(huge));
        CHECK_FALSE(is_decimal_text("0." + huge));
    }
}
