#include "render_problems.h"

namespace gpulab::app {

namespace {
std::string g_problem;
}

void note_render_problem(const std::string& what) {
    if (g_problem.empty()) g_problem = what;
}

const std::string& render_problem() { return g_problem; }

void clear_render_problem() { g_problem.clear(); }

}  // namespace gpulab::app
