// Integer expressions in puzzle files: a buffer's size or a launch dimension written in the case's
// variables ("(n + 255) / 256", "width * height"). Hand-written rather than a library: the
// expressions are integer arithmetic with C's truncating division, a handful of operators and
// named variables, and a Debian expression library (muparser) evaluates in floating point.
// Grammar: sum := product (('+'|'-') product)*; product := unary (('*'|'/'|'%') unary)*;
// unary := '-' unary | number | name | name '(' sum (',' sum)* ')' | '(' sum ')'; functions:
// min, max, ceil_div. Verified by tests/test_puzzles.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace gpulab::puzzles {

using Variables = std::map<std::string, int64_t>;

struct ExprResult {
    std::optional<int64_t> value;
    std::string error;  // one sentence when value is empty: an unknown name, division by zero, syntax
};

ExprResult evaluate(const std::string& expression, const Variables& vars);

}  // namespace gpulab::puzzles
