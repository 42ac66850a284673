// The kernel editor's colours (issue 41): a student's CUDA cut into spans of one kind each -
// comments, strings and characters, preprocessor lines, numbers, C++ and CUDA keywords, CUDA's
// built-in variables and functions, and plain text. A small scanner of our own rather than a
// library: Debian has no C++ highlighter that draws into Dear ImGui, and the editor needs only
// the spans (their byte ranges), which the scanner gives for every byte of any text, broken or
// half-typed code included. Plain C++ (no ImGui): tested by tests/test_cuda_syntax.cpp.
#pragma once

#include <string_view>
#include <vector>

namespace gpulab::app {

enum class CudaToken { Plain, Comment, String, Preprocessor, Number, Keyword, Type, Builtin };

struct CudaSpan {
    int begin = 0;  // byte offsets into the text, end exclusive
    int end = 0;
    CudaToken kind = CudaToken::Plain;
};

// Spans covering every byte of `text` in order, none empty, none crossing a line end ('\n' is in
// a Plain span, or inside a block comment's span, which is cut at each line end so a line can be
// drawn alone).
std::vector<CudaSpan> cuda_spans(std::string_view text);

}  // namespace gpulab::app
