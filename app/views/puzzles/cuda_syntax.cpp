// See cuda_syntax.h. One pass over the text: a block comment may span lines (its state is carried
// across them); everything else ends at its line.
#include "cuda_syntax.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace gpulab::app {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

template <std::size_t N>
bool listed(std::string_view word, const std::array<std::string_view, N>& words) {
    return std::find(words.begin(), words.end(), word) != words.end();
}

// C++ words a kernel uses, and CUDA's qualifiers.
constexpr std::array<std::string_view, 40> kKeywords = {
    "if",         "else",       "for",          "while",      "do",          "return",    "break",
    "continue",   "switch",     "case",         "default",    "const",       "constexpr", "static",
    "extern",     "inline",     "volatile",     "struct",     "template",    "typename",  "sizeof",
    "auto",       "true",       "false",        "nullptr",    "using",       "namespace", "goto",
    "__global__", "__device__", "__host__",     "__shared__", "__constant__", "__restrict__",
    "__forceinline__", "__noinline__", "__align__", "__launch_bounds__", "static_cast", "reinterpret_cast"};
constexpr std::array<std::string_view, 30> kTypes = {
    "void",   "bool",    "char",    "short",   "int",    "long",    "float",    "double",  "unsigned", "signed",
    "size_t", "int8_t",  "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "half",
    "dim3",   "float2",  "float4",  "int2",    "int3",   "int4",    "uint3",    "__half",  "__nv_bfloat16", "char4"};
// The variables every thread has, and the calls that make threads work together.
constexpr std::array<std::string_view, 24> kBuiltins = {
    "threadIdx",        "blockIdx",          "blockDim",         "gridDim",          "warpSize",
    "__syncthreads",    "__syncwarp",        "__shfl_sync",      "__shfl_down_sync", "__shfl_up_sync",
    "__shfl_xor_sync",  "__ballot_sync",     "__any_sync",       "__all_sync",       "atomicAdd",
    "atomicMax",        "atomicMin",         "atomicCAS",        "atomicExch",       "__syncthreads_count",
    "__syncthreads_and", "__syncthreads_or", "__ldg",            "__activemask"};

}  // namespace

std::vector<CudaSpan> cuda_spans(std::string_view text) {
    std::vector<CudaSpan> out;
    const int n = static_cast<int>(text.size());
    auto add = [&](int b, int e, CudaToken k) {
        if (e <= b) return;
        if (!out.empty() && out.back().kind == k && out.back().end == b && text[static_cast<std::size_t>(b)] != '\n' &&
            text[static_cast<std::size_t>(out.back().end - 1)] != '\n')
            out.back().end = e;  // neighbours of one kind on one line join
        else
            out.push_back({b, e, k});
    };
    bool in_block = false;  // inside /* ... */ at the start of the current position
    int i = 0;
    bool line_start = true;  // only spaces so far on this line (a '#' there starts a directive)
    while (i < n) {
        const char c = text[static_cast<std::size_t>(i)];
        if (c == '\n') {
            add(i, i + 1, CudaToken::Plain);
            ++i;
            line_start = true;
            continue;
        }
        if (in_block) {
            int j = i;
            while (j < n && text[static_cast<std::size_t>(j)] != '\n' &&
                   !(text[static_cast<std::size_t>(j)] == '*' && j + 1 < n && text[static_cast<std::size_t>(j + 1)] == '/'))
                ++j;
            if (j < n && text[static_cast<std::size_t>(j)] == '*') {
                j += 2;
                in_block = false;
            }
            add(i, j, CudaToken::Comment);
            i = j;
            line_start = false;
            continue;
        }
        const auto line_end = [&](int from) {
            int j = from;
            while (j < n && text[static_cast<std::size_t>(j)] != '\n') ++j;
            return j;
        };
        const char next = i + 1 < n ? text[static_cast<std::size_t>(i + 1)] : '\0';
        if (c == '/' && next == '/') {
            const int j = line_end(i);
            add(i, j, CudaToken::Comment);
            i = j;
            continue;
        }
        if (c == '/' && next == '*') {
            add(i, i + 2, CudaToken::Comment);
            i += 2;
            in_block = true;
            line_start = false;
            continue;
        }
        if (c == '#' && line_start) {
            // The directive up to a comment that follows it on its line.
            int j = i;
            while (j < n && text[static_cast<std::size_t>(j)] != '\n' &&
                   !(text[static_cast<std::size_t>(j)] == '/' && j + 1 < n &&
                     (text[static_cast<std::size_t>(j + 1)] == '/' || text[static_cast<std::size_t>(j + 1)] == '*')))
                ++j;
            add(i, j, CudaToken::Preprocessor);
            i = j;
            line_start = false;
            continue;
        }
        if (c == '"' || c == '\'') {
            int j = i + 1;
            while (j < n && text[static_cast<std::size_t>(j)] != '\n' && text[static_cast<std::size_t>(j)] != c) {
                if (text[static_cast<std::size_t>(j)] == '\\' && j + 1 < n && text[static_cast<std::size_t>(j + 1)] != '\n') ++j;
                ++j;
            }
            if (j < n && text[static_cast<std::size_t>(j)] == c) ++j;  // an unclosed one ends at its line
            add(i, j, CudaToken::String);
            i = j;
            line_start = false;
            continue;
        }
        if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(next)))) {
            int j = i + 1;
            while (j < n) {
                const char d = text[static_cast<std::size_t>(j)];
                const char prev = text[static_cast<std::size_t>(j - 1)];
                // Digits, hex letters, '.', suffixes (f, u, l) and an exponent's sign.
                if (std::isalnum(static_cast<unsigned char>(d)) || d == '.' || d == '\'' ||
                    ((d == '+' || d == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P')))
                    ++j;
                else
                    break;
            }
            add(i, j, CudaToken::Number);
            i = j;
            line_start = false;
            continue;
        }
        if (ident_start(c)) {
            int j = i + 1;
            while (j < n && ident_char(text[static_cast<std::size_t>(j)])) ++j;
            const std::string_view word = text.substr(static_cast<std::size_t>(i), static_cast<std::size_t>(j - i));
            add(i, j,
                listed(word, kKeywords)   ? CudaToken::Keyword
                : listed(word, kTypes)    ? CudaToken::Type
                : listed(word, kBuiltins) ? CudaToken::Builtin
                                          : CudaToken::Plain);
            i = j;
            line_start = false;
            continue;
        }
        add(i, i + 1, CudaToken::Plain);
        if (c != ' ' && c != '\t' && c != '\r') line_start = false;
        ++i;
    }
    return out;
}

}  // namespace gpulab::app
