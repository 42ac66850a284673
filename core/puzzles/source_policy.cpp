#include "source_policy.h"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <regex>
#include <set>

namespace gpulab::puzzles {

namespace {

// [SECTION] what CUDA names with two leading underscores

// The reserved names a CUDA kernel may use: CUDA's qualifiers, intrinsics and predefined macros,
// and the C++ preprocessor's own. Every other `__name` is the compiler's (__attribute__,
// __builtin_*, __asm__, __sync_*, __tsan_*...) and is refused: those are how a submission would
// switch off or step around the instrumentation the checks rely on.
const std::set<std::string>& cuda_reserved_names() {
    static const std::set<std::string> names = {
        // qualifiers
        "__global__", "__device__", "__host__", "__shared__", "__constant__", "__managed__", "__restrict__",
        "__restrict", "__noinline__", "__forceinline__", "__inline__", "__launch_bounds__", "__align__",
        "__grid_constant__",
        // barriers, fences, warp functions
        "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__syncwarp",
        "__threadfence", "__threadfence_block", "__threadfence_system", "__ballot_sync", "__any_sync", "__all_sync",
        "__uni_sync", "__activemask", "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
        "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync", "__shfl_sync",
        "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__nanosleep", "__trap",
        // loads and stores with cache hints
        "__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv", "__stcg", "__stcs", "__stwb", "__stwt",
        // integer intrinsics
        "__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll", "__brev", "__brevll", "__byte_perm",
        "__funnelshift_l", "__funnelshift_lc", "__funnelshift_r", "__funnelshift_rc", "__mul24", "__umul24",
        "__mulhi", "__umulhi", "__mul64hi", "__umul64hi", "__sad", "__usad", "__hadd", "__rhadd", "__uhadd",
        "__urhadd", "__dp4a", "__dp2a_lo", "__dp2a_hi",
        // fast math
        "__fdividef", "__expf", "__exp10f", "__logf", "__log2f", "__log10f", "__powf", "__sinf", "__cosf",
        "__tanf", "__sincosf", "__saturatef", "__double2hiint", "__double2loint", "__hiloint2double",
        // predefined macros
        "__LINE__", "__FILE__", "__func__", "__FUNCTION__", "__PRETTY_FUNCTION__", "__COUNTER__", "__DATE__",
        "__TIME__", "__cplusplus", "__VA_ARGS__", "__VA_OPT__", "__CUDACC__", "__NVCC__", "__CUDA_ARCH__",
        "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__", "__CUDACC_RTC__",
    };
    return names;
}

bool is_cuda_reserved(const std::string& id) {
    if (cuda_reserved_names().count(id) != 0) return true;
    // Conversions (__float2int_rn, __int2float_rz, __float_as_int, __longlong_as_double) and the
    // rounding-mode arithmetic (__fadd_rn, __fmul_rz, __fmaf_rn, __dsqrt_ru).
    static const std::regex conversions(
        R"(^__(float|double|half|int|uint|ll|ull|longlong|short|ushort)(2|_as_)(float|double|half|int|uint|ll|ull|longlong|short|ushort)(_r[nzud])?$)");
    static const std::regex rounding(R"(^__[fd][a-z]{2,6}_(ieee_)?r[nzud]$)");
    return std::regex_match(id, conversions) || std::regex_match(id, rounding);
}

const std::set<std::string>& allowed_headers() {
    static const std::set<std::string> headers = {
        "cuda_runtime.h", "cuda_runtime_api.h", "cuda.h", "device_launch_parameters.h", "device_functions.h",
        "cstdio", "stdio.h", "cmath", "math.h", "cstdint", "stdint.h", "cstddef", "stddef.h", "climits", "limits.h",
        "cfloat", "float.h", "cstdlib", "stdlib.h", "cstring", "string.h", "cassert", "assert.h", "iostream",
        "utility", "type_traits", "limits", "algorithm", "ctime", "time.h",
    };
    return headers;
}

// [SECTION] the lexer: just enough C++ to tell code from comments and literals

struct Text {
    std::string chars;     // the source with backslash-newlines spliced out (translation phase 2)
    std::vector<int> line; // per char: its line in the student's file
    std::vector<std::size_t> at;  // per char: its offset in the student's file
};

Text splice(const std::string& s) {
    Text t;
    int line = 1;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\') {
            std::size_t j = i + 1;
            if (j < s.size() && s[j] == '\r') ++j;
            if (j < s.size() && s[j] == '\n') {
                i = j;
                ++line;
                continue;
            }
        }
        t.chars += s[i];
        t.line.push_back(line);
        t.at.push_back(i);
        if (s[i] == '\n') ++line;
    }
    return t;
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || (c & 0x80); }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

class Policer {
public:
    explicit Policer(const std::string& source) : t_(splice(source)), out_(source) {}

    PolicedSource run() {
        const std::string& c = t_.chars;
        std::size_t i = 0;
        bool line_start = true;
        while (i < c.size() && refusals_.size() < 5) {
            const char ch = c[i];
            if (ch == '\n') {
                line_start = true;
                ++i;
                continue;
            }
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
                ++i;
                continue;
            }
            if (c.compare(i, 2, "//") == 0) {
                i = c.find('\n', i);
                if (i == std::string::npos) i = c.size();
                continue;
            }
            if (c.compare(i, 2, "/*") == 0) {
                const std::size_t end = c.find("*/", i + 2);
                i = end == std::string::npos ? c.size() : end + 2;
                continue;
            }
            const bool hash = ch == '#' || c.compare(i, 2, "%:") == 0;
            if (hash && line_start) {
                i = directive(i + (ch == '#' ? 1 : 2));
                line_start = true;
                continue;
            }
            line_start = false;
            i = token(i);
        }
        PolicedSource p;
        p.refusals = refusals_;
        p.source = out_;
        return p;
    }

private:
    void refuse(std::size_t i, std::string message) {
        const int line = i < t_.line.size() ? t_.line[i] : (t_.line.empty() ? 1 : t_.line.back());
        for (const SourceRefusal& r : refusals_)
            if (r.line == line && r.message == message) return;
        refusals_.push_back({line, std::move(message)});
    }

    // Blanks [from, to) of the spliced text in the compiled source (newlines and splices kept).
    void blank(std::size_t from, std::size_t to) {
        if (from >= to || from >= t_.at.size()) return;
        const std::size_t a = t_.at[from], b = t_.at[std::min(to, t_.at.size()) - 1] + 1;
        for (std::size_t k = a; k < b; ++k)
            if (out_[k] != '\n' && out_[k] != '\\' && out_[k] != '\r') out_[k] = ' ';
    }

    std::size_t skip_literal(std::size_t i, char quote) {
        const std::string& c = t_.chars;
        ++i;
        while (i < c.size() && c[i] != quote && c[i] != '\n') i += c[i] == '\\' ? 2 : 1;
        return std::min(c.size(), i + 1);
    }

    std::size_t skip_raw_string(std::size_t i) {  // at the opening quote of R"delim(...)delim"
        const std::string& c = t_.chars;
        const std::size_t open = c.find('(', i);
        if (open == std::string::npos || open - i > 17) return skip_literal(i, '"');
        const std::string close = ")" + c.substr(i + 1, open - i - 1) + "\"";
        const std::size_t end = c.find(close, open);
        return end == std::string::npos ? c.size() : end + close.size();
    }

    std::size_t identifier(std::size_t i, std::string& id) {
        const std::string& c = t_.chars;
        const std::size_t start = i;
        while (i < c.size() && ident_char(c[i])) ++i;
        id = c.substr(start, i - start);
        return i;
    }

    void check_identifier(std::size_t at, const std::string& id) {
        if (id == "asm" || id == "__asm" || id == "__asm__") {
            refuse(at, "asm (inline assembly) is refused: it runs instructions gpulab cannot check, and on a GPU it "
                       "would be PTX, not x86");
        } else if (id == "__attribute__" || id == "__attribute") {
            refuse(at, "__attribute__ is refused: attributes can switch gpulab's checks off; a kernel does not need them");
        } else if (id == "_Pragma") {
            refuse(at, "_Pragma is refused: pragmas can switch gpulab's checks off");
        } else if (id.rfind("gpulab_", 0) == 0 || id.rfind("GPULAB_", 0) == 0) {
            refuse(at, "'" + id + "' is refused: names starting with gpulab_ belong to gpulab's checker");
        } else if (id.size() > 2 && id[0] == '_' && id[1] == '_' && !is_cuda_reserved(id)) {
            refuse(at, "'" + id + "' is refused: names starting with two underscores belong to the compiler, and "
                       "this one is not one of CUDA's device functions that gpulab knows (some switch its checks off)");
        }
    }

    // A token outside a directive; returns where the next one starts.
    std::size_t token(std::size_t i) {
        const std::string& c = t_.chars;
        const char ch = c[i];
        if (ch == '"') return skip_literal(i, '"');
        if (ch == '\'') return skip_literal(i, '\'');
        if (std::isdigit(static_cast<unsigned char>(ch)) || (ch == '.' && i + 1 < c.size() && std::isdigit(static_cast<unsigned char>(c[i + 1])))) {
            // A pp-number, digit separators (1'000) and exponents (1e-5f) included.
            ++i;
            while (i < c.size()) {
                if ((c[i] == '+' || c[i] == '-') && (c[i - 1] == 'e' || c[i - 1] == 'E' || c[i - 1] == 'p' || c[i - 1] == 'P')) ++i;
                else if (ident_char(c[i]) || c[i] == '.' || (c[i] == '\'' && i + 1 < c.size() && ident_char(c[i + 1]))) ++i;
                else break;
            }
            return i;
        }
        if (ident_start(ch)) {
            std::string id;
            const std::size_t end = identifier(i, id);
            if (end < c.size() && c[end] == '\\') refuse(end, "universal character names (\\u...) outside strings are refused");
            // String-literal prefixes: u8"...", L'x', R"(...)".
            if (end < c.size() && (c[end] == '"' || c[end] == '\'')) {
                static const std::set<std::string> prefixes = {"L", "u", "U", "u8", "R", "LR", "uR", "UR", "u8R"};
                if (prefixes.count(id) != 0) {
                    return id.back() == 'R' && c[end] == '"' ? skip_raw_string(end) : skip_literal(end, c[end]);
                }
            }
            check_identifier(i, id);
            shared_qualifier(i, id);
            last_ident_ = id;
            last_ident_at_ = i;
            return end;
        }
        if (ch == '\\') {
            refuse(i, "universal character names (\\u...) outside strings are refused");
            return i + 1;
        }
        if (c.compare(i, 2, "##") == 0 || c.compare(i, 4, "%:%:") == 0) {
            refuse(i, "token pasting (##) is refused: it can build names gpulab refuses; write the name out");
            return i + 2;
        }
        if (c.compare(i, 2, "[[") == 0) {
            refuse(i, "attributes ([[...]]) are refused: they can switch gpulab's checks off; a kernel does not need them");
            return i + 2;
        }
        last_ident_.clear();
        return i + 1;
    }

    // `static __shared__` and `__shared__ static`: CUDA accepts the redundant static; the simulator's
    // __shared__ already is one, so it is blanked. `extern __shared__` sizes the array at launch.
    void shared_qualifier(std::size_t at, const std::string& id) {
        if (id == "__shared__") {
            if (last_ident_ == "static") blank(last_ident_at_, last_ident_at_ + 6);
            if (last_ident_ == "extern") {
                refuse(at, "extern __shared__ (an array sized at launch) is not offered by these puzzles, which launch "
                           "with no dynamic shared memory: give the array a fixed size, as in __shared__ float tile[256]");
            }
        } else if (id == "static" && last_ident_ == "__shared__") {
            blank(at, at + 6);
        }
    }

    // After `#` at the start of a line; returns the end of the directive's logical line.
    std::size_t directive(std::size_t i) {
        const std::string& c = t_.chars;
        const std::size_t hash = i - 1;
        std::size_t end = c.find('\n', i);
        if (end == std::string::npos) end = c.size();
        while (i < end && (c[i] == ' ' || c[i] == '\t')) ++i;
        std::string name;
        const std::size_t after = identifier(i, name);
        static const std::set<std::string> plain = {"define", "undef", "if", "ifdef", "ifndef", "elif", "else", "endif",
                                                    "error", "warning", ""};
        if (name == "include") {
            include(after, end);
        } else if (name == "pragma") {
            std::size_t k = after;
            while (k < end && (c[k] == ' ' || c[k] == '\t')) ++k;
            std::string what;
            identifier(k, what);
            if (what == "unroll" || what == "once") blank(hash, end);  // g++ has no unroll pragma of CUDA's form
            else refuse(hash, "#pragma " + what + " is refused: pragmas can switch gpulab's checks off (only #pragma unroll is accepted)");
        } else if (name == "line") {
            refuse(hash, "#line is refused: it would change the line numbers gpulab's messages give");
        } else if (plain.count(name) == 0) {
            refuse(hash, "#" + name + " is refused: a kernel needs only #include, #define, #if and #pragma unroll");
        }
        // The rest of a #define or #if is code: its names and ## are checked like any other.
        if (name == "define" || name == "undef" || name == "if" || name == "elif" || name == "ifdef" || name == "ifndef") {
            std::size_t k = after;
            while (k < end) {
                if (c.compare(k, 2, "/*") == 0) {
                    const std::size_t close = c.find("*/", k + 2);
                    k = close == std::string::npos ? c.size() : close + 2;
                    end = std::max(end, std::min(c.size(), c.find('\n', k)));  // a comment may span lines
                    continue;
                }
                if (c.compare(k, 2, "//") == 0) break;
                if (c[k] == ' ' || c[k] == '\t' || c[k] == '\r') {
                    ++k;
                    continue;
                }
                std::string id;
                if (ident_start(c[k])) {
                    const std::size_t e = identifier(k, id);
                    if (id == "__has_include" || id == "__has_include_next") {
                        refuse(k, id + " is refused: a kernel may include only the headers gpulab lists");
                    } else if (id != "defined") {
                        check_identifier(k, id);
                    }
                    if (e < c.size() && (c[e] == '"' || c[e] == '\'')) {
                        k = e;
                        continue;
                    }
                    k = e;
                    continue;
                }
                if (c[k] == '#' && k + 1 < c.size() && c[k + 1] != '#') {  // stringizing is harmless
                    ++k;
                    continue;
                }
                k = token(k);
            }
        }
        return end;
    }

    void include(std::size_t i, std::size_t end) {
        const std::string& c = t_.chars;
        while (i < end && (c[i] == ' ' || c[i] == '\t')) ++i;
        const char open = i < end ? c[i] : '\0';
        const char close = open == '<' ? '>' : open == '"' ? '"' : '\0';
        const std::size_t stop = close != '\0' ? c.find(close, i + 1) : std::string::npos;
        if (close == '\0' || stop == std::string::npos || stop > end) {
            refuse(i, "#include must name its header directly, as in #include <cstdio>");
            return;
        }
        const std::string header = c.substr(i + 1, stop - i - 1);
        if (allowed_headers().count(header) == 0) {
            std::string list;
            for (const char* h : {"cuda_runtime.h", "cstdio", "cmath", "cstdint", "climits", "cfloat", "iostream"})
                list += std::string(list.empty() ? "" : ", ") + h;
            refuse(i, "#include " + std::string(1, open) + header + std::string(1, close) +
                          " is refused: a kernel here may include only CUDA's and the C/C++ library's usual headers (" +
                          list + " and a few more)");
        }
    }

    Text t_;
    std::string out_;
    std::vector<SourceRefusal> refusals_;
    std::string last_ident_;
    std::size_t last_ident_at_ = 0;
};

// [SECTION] what a compiled kernel may call

std::string demangled(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && d ? std::string(d.get()) : mangled;
}

// A symbol's name as C++ spells it, without its parameters: "std::ostream::operator<<".
std::string symbol_name(const std::string& mangled) {
    std::string name = demangled(mangled);
    return name.substr(0, name.find('('));
}

bool is_stream(const std::string& name) {
    if (name.rfind("std::", 0) != 0) return false;
    for (const char* part : {"ostream", "cout", "cerr", "endl"})
        if (name.find(part) != std::string::npos) return true;
    return false;
}

}  // namespace

std::string identifier_written_for(const std::string& mangled) {
    const std::string name = symbol_name(mangled);
    if (is_stream(name)) return "cout";
    const std::size_t scope = name.rfind("::");
    return scope == std::string::npos ? name : name.substr(scope + 2);
}

PolicedSource police_source(const std::string& source) { return Policer(source).run(); }

std::string refused_symbol(const std::string& mangled) {
    // The device functions a CUDA kernel may call that g++ leaves to a library: printf, the math
    // library (float and double), memory functions, new/delete, and what C++ emits on its own
    // (static-local guards, exception tables, <iostream>'s start-up object, the stack protector).
    static const std::set<std::string> allowed = {
        "printf", "puts", "putchar", "vprintf", "malloc", "free", "memcpy", "memset", "memmove", "__assert_fail",
        "_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm", "_ZnwmSt11align_val_t", "_ZdlPvSt11align_val_t",
        "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_atexit", "__dso_handle",
        "__cxa_pure_virtual", "__cxa_throw_bad_array_new_length", "__gxx_personality_v0", "_Unwind_Resume",
        "__stack_chk_fail", "_GLOBAL_OFFSET_TABLE_", "_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev",
        "__start_gpulab_shared", "__stop_gpulab_shared",
    };
    if (allowed.count(mangled) != 0) return "";
    static const std::regex math(
        R"(^(a?(sin|cos|tan)h?|atan2|abs|labs|llabs|nan|exp|exp2|exp10|expm1|log|log2|log10|log1p|pow|sqrt|cbrt|rsqrt|hypot|fabs|fmin|fmax|fmod|remainder|floor|ceil|round|trunc|rint|nearbyint|lrint|llrint|lround|llround|fma|erf|erfc|tgamma|lgamma|copysign|frexp|ldexp|scalbn|modf|fdim|ilogb|logb|nextafter|sincos)f?$)");
    if (std::regex_match(mangled, math)) return "";
    const std::string name = symbol_name(mangled);
    if (is_stream(name)) return "the kernel uses std::cout or another stream, which is host code: a kernel prints with printf";
    return "the kernel calls " + name + ", which is not a device function: a kernel may call printf, the math "
           "functions, atomics, CUDA's intrinsics and its own __device__ functions, and gpulab refuses the rest "
           "because they could reach outside the kernel";
}

int first_line_of(const std::string& source, const std::string& name) {
    if (name.empty()) return 0;
    std::size_t pos = 0;
    while ((pos = source.find(name, pos)) != std::string::npos) {
        const bool left = pos == 0 || !ident_char(source[pos - 1]);
        const bool right = pos + name.size() >= source.size() || !ident_char(source[pos + name.size()]);
        if (left && right) return 1 + static_cast<int>(std::count(source.begin(), source.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
        pos += name.size();
    }
    return 0;
}

}  // namespace gpulab::puzzles
