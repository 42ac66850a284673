// Finds the run-time data folders (shaders/, lessons/, assets/): an installed binary reads only
// <prefix>/share/gpulab; a binary in the build tree looks next to itself, in its parent folders, in
// the source tree it was built from, or in the working directory. GPULAB_DATA_DIR in the environment
// overrides all of them.
#pragma once

#include <filesystem>
#include <string>

namespace gpulab::app {

// Absolute path of `relative` (e.g. "shaders/colormap.frag"); empty when not found anywhere.
std::filesystem::path find_resource(const std::string& relative);

// The folder that holds shaders/, lessons/ and assets/ (empty when none was found).
std::filesystem::path data_root();

// The built-in kernel puzzles' folder (empty when not found).
std::filesystem::path puzzle_dir();
// Where the student's device header (student_cuda.h) and gpulab-kernel-runner are; empty paths
// when not found (puzzles::find_toolchain then says what is missing).
std::filesystem::path student_device_dir();
std::filesystem::path kernel_runner_path();

// "" when the data folder was found and can be read; otherwise one sentence naming where gpulab
// looked and what to do (reinstall, fix permissions, or set GPULAB_DATA_DIR).
std::string data_root_problem();

}  // namespace gpulab::app
