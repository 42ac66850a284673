// Finds the run-time data folders (shaders/, lessons/, assets/): next to the binary, in its
// parent folders (the build tree), in the source tree the binary was built from, or in the
// working directory. GPULAB_DATA_DIR in the environment overrides all of them.
#pragma once

#include <filesystem>
#include <string>

namespace gpulab::app {

// Absolute path of `relative` (e.g. "shaders/colormap.frag"); empty when not found anywhere.
std::filesystem::path find_resource(const std::string& relative);

// The folder that holds shaders/, lessons/ and assets/ (empty when none was found).
std::filesystem::path data_root();

}  // namespace gpulab::app
