#include "int_expression.h"

#include <cctype>
#include <limits>

namespace gpulab::puzzles {

namespace {

struct Parser {
    const std::string& s;
    const Variables& vars;
    std::size_t pos = 0;
    std::string error;

    void skip() {
        while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
    }
    bool fail(const std::string& why) {
        if (error.empty()) error = why;
        return false;
    }
    bool accept(char c) {
        skip();
        if (pos < s.size() && s[pos] == c) {
            ++pos;
            return true;
        }
        return false;
    }
    // Every operation checks for overflow: sizes feed allocations.
    bool sum(int64_t& out) {
        if (!product(out)) return false;
        for (;;) {
            if (accept('+')) {
                int64_t r = 0;
                if (!product(r)) return false;
                if (__builtin_add_overflow(out, r, &out)) return fail("'" + s + "' overflows");
            } else if (accept('-')) {
                int64_t r = 0;
                if (!product(r)) return false;
                if (__builtin_sub_overflow(out, r, &out)) return fail("'" + s + "' overflows");
            } else {
                return true;
            }
        }
    }
    bool product(int64_t& out) {
        if (!unary(out)) return false;
        for (;;) {
            char op = 0;
            if (accept('*')) op = '*';
            else if (accept('/')) op = '/';
            else if (accept('%')) op = '%';
            else return true;
            int64_t r = 0;
            if (!unary(r)) return false;
            if (op == '*') {
                if (__builtin_mul_overflow(out, r, &out)) return fail("'" + s + "' overflows");
            } else {
                if (r == 0) return fail("'" + s + "' divides by zero");
                out = op == '/' ? out / r : out % r;
            }
        }
    }
    bool unary(int64_t& out) {
        skip();
        if (accept('-')) {
            if (!unary(out)) return false;
            out = -out;
            return true;
        }
        if (accept('(')) {
            if (!sum(out)) return false;
            return accept(')') ? true : fail("'" + s + "': a ')' is missing");
        }
        skip();
        if (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
            out = 0;
            while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
                if (__builtin_mul_overflow(out, int64_t{10}, &out) ||
                    __builtin_add_overflow(out, int64_t{s[pos] - '0'}, &out)) {
                    return fail("'" + s + "': a number too large");
                }
                ++pos;
            }
            return true;
        }
        std::string name;
        while (pos < s.size() && (std::isalnum(static_cast<unsigned char>(s[pos])) || s[pos] == '_')) name += s[pos++];
        if (name.empty()) return fail("'" + s + "': expected a number, a name or '(' at character " + std::to_string(pos + 1));
        if (accept('(')) {
            int64_t a = 0, b = 0;
            if (!sum(a)) return false;
            if (!accept(',')) return fail("'" + s + "': " + name + "() takes two arguments");
            if (!sum(b)) return false;
            if (!accept(')')) return fail("'" + s + "': a ')' is missing");
            if (name == "min") out = a < b ? a : b;
            else if (name == "max") out = a > b ? a : b;
            else if (name == "ceil_div") {
                if (b <= 0) return fail("'" + s + "': ceil_div needs a positive divisor");
                out = a / b + (a % b != 0 && a > 0 ? 1 : 0);
            } else {
                return fail("'" + s + "': no function '" + name + "' (min, max and ceil_div are known)");
            }
            return true;
        }
        const auto it = vars.find(name);
        if (it == vars.end()) return fail("'" + s + "' names '" + name + "', which this case does not set");
        out = it->second;
        return true;
    }
};

}  // namespace

ExprResult evaluate(const std::string& expression, const Variables& vars) {
    Parser p{expression, vars, 0, {}};
    int64_t v = 0;
    ExprResult r;
    if (!p.sum(v)) {
        r.error = p.error;
        return r;
    }
    p.skip();
    if (p.pos != expression.size()) {
        r.error = "'" + expression + "': unexpected '" + expression.substr(p.pos, 1) + "' at character " +
                  std::to_string(p.pos + 1);
        return r;
    }
    r.value = v;
    return r;
}

}  // namespace gpulab::puzzles
