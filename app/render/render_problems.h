// Pictures that could not be drawn (a colour-map shader that does not compile, a file under its
// name that cannot be read): noted once where it happens, said in the status bar, and an export
// made meanwhile fails with the sentence instead of writing empty pictures as a success (issue 31,
// item 2). The UI thread's only: notes come from GL code, which runs there.
#pragma once

#include <string>

namespace gpulab::app {

// Keeps the first problem (later ones usually follow from it); "" is ignored.
void note_render_problem(const std::string& what);
// The first problem noted, or "".
const std::string& render_problem();
// For tests: forget it.
void clear_render_problem();

}  // namespace gpulab::app
