// The kernel editor's colours (app/views/puzzles/cuda_syntax.h): every byte in one span, spans in
// order and within lines, and each kind found where a student would expect it.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "views/puzzles/cuda_syntax.h"

using namespace gpulab::app;

namespace {

// The kind of the span holding the first occurrence of `what` in `text`.
CudaToken kind_of(std::string_view text, std::string_view what) {
    const auto at = static_cast<int>(text.find(what));
    REQUIRE(at >= 0);
    for (const CudaSpan& s : cuda_spans(text))
        if (s.begin <= at && at < s.end) return s.kind;
    FAIL("no span holds it");
    return CudaToken::Plain;
}

void check_cover(std::string_view text) {
    int at = 0;
    for (const CudaSpan& s : cuda_spans(text)) {
        CHECK(s.begin == at);
        CHECK(s.end > s.begin);
        const std::string_view body = text.substr(static_cast<std::size_t>(s.begin), static_cast<std::size_t>(s.end - s.begin));
        // A line end is alone or last in its span: a line can be drawn alone.
        const auto nl = body.find('\n');
        CHECK((nl == std::string_view::npos || nl == body.size() - 1));
        at = s.end;
    }
    CHECK(at == static_cast<int>(text.size()));
}

}  // namespace

TEST_CASE("the kernel editor's colours: every byte in one span and each kind where expected") {
    const std::string kernel =
        "#include <cuda_runtime.h>  // the runtime\n"
        "__global__ void scale(const float* a, float* out, int n) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;  /* one thread,\n"
        "       one element */ if (i < n) out[i] = 2.5f * a[i] + 1e-3f;\n"
        "    __syncthreads();\n"
        "    const char* s = \"a \\\"quoted\\\" word\"; char c = '\\n';\n"
        "}\n";
    check_cover(kernel);
    CHECK(kind_of(kernel, "#include") == CudaToken::Preprocessor);
    CHECK(kind_of(kernel, "// the runtime") == CudaToken::Comment);
    CHECK(kind_of(kernel, "__global__") == CudaToken::Keyword);
    CHECK(kind_of(kernel, "void") == CudaToken::Type);
    CHECK(kind_of(kernel, "float*") == CudaToken::Type);
    CHECK(kind_of(kernel, "blockIdx") == CudaToken::Builtin);
    CHECK(kind_of(kernel, "threadIdx") == CudaToken::Builtin);
    CHECK(kind_of(kernel, "one element */") == CudaToken::Comment);  // the comment's second line
    CHECK(kind_of(kernel, "if (i") == CudaToken::Keyword);            // after the comment closes
    CHECK(kind_of(kernel, "2.5f") == CudaToken::Number);
    CHECK(kind_of(kernel, "1e-3f") == CudaToken::Number);
    CHECK(kind_of(kernel, "__syncthreads") == CudaToken::Builtin);
    CHECK(kind_of(kernel, "quoted") == CudaToken::String);
    CHECK(kind_of(kernel, "'\\n'") == CudaToken::String);
    CHECK(kind_of(kernel, "scale") == CudaToken::Plain);
}

TEST_CASE("the kernel editor's colours survive half-typed code") {
    for (const std::string_view text : {"", "\n", "/*", "/* never closed\nstill\n", "\"unclosed\nnext", "'", "#",
                                        "x = 1e+", "a/b", "  # define X 1\n", "\t\r\n"})
        check_cover(text);
    CHECK(kind_of("/* never closed\nstill", "still") == CudaToken::Comment);
    CHECK(kind_of("\"unclosed\nint x;", "int") == CudaToken::Type);  // a string ends at its line
    CHECK(kind_of("int a = b / c;", "/") == CudaToken::Plain);
}
