// The folders lessons are loaded from, in order, shared by the GUI and `gpulab lessons`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpulab::app {

// ($XDG_CONFIG_HOME or ~/.config)/gpulab/lessons; empty when neither variable is set.
std::filesystem::path user_lesson_directory();

// The built-in lessons/ folder, then the user's lesson folder when it exists, then `extra`
// (--lesson-dir). A broken or duplicate lesson in any of them is reported, never fatal.
std::vector<std::string> lesson_directories(const std::vector<std::string>& extra);

}  // namespace gpulab::app
