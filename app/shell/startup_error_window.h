// A window that says why gpulab cannot start (its data folder missing or unreadable, an unknown
// --lesson) and waits for Close. A student who starts gpulab from the desktop menu never sees
// stderr: a window that opens and vanishes would tell them nothing. The message is printed to
// stderr as well, for the terminal and the tests. Verified by gui.startup_error in
// tests/gui_tests.cmake (exit 1, the sentence on stderr, a non-blank screenshot).
#pragma once

#include <string>

struct GLFWwindow;

namespace gpulab::app {

// Draws `message` under a title in `window` (GL context current, glad loaded, no ImGui context yet)
// until the window is closed, Close or Escape is pressed, or `max_frames` frames (> 0, for tests)
// have been drawn; with `screenshot_path` the last frame is saved there. Creates and destroys its
// own ImGui context. Returns the exit status: 1 (the app did not start).
int show_startup_error(GLFWwindow* window, const std::string& message, int max_frames,
                       const std::string& screenshot_path);

}  // namespace gpulab::app
