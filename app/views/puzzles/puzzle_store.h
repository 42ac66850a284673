// Where a student's kernel for each puzzle is kept between sessions:
// $XDG_CONFIG_HOME/gpulab/puzzles/<id>.cu (or ~/.config/gpulab/puzzles/<id>.cu). Written whole to a
// temporary file in the same folder and renamed over the old one, so a crash or a full disk in the
// middle of a save leaves the previous version, never half a file. Plain C++ (no ImGui). Verified
// by the puzzle GUI tests (tests/puzzle_gui_tests.cmake: the saved file after typing, a folder
// that cannot be written).
#pragma once

#include <filesystem>
#include <string>

namespace gpulab::app {

// The folder; empty when neither XDG_CONFIG_HOME nor HOME is set.
std::filesystem::path puzzle_save_dir();
// The file of one puzzle (empty as above, or for an id that is not a plain folder name).
std::filesystem::path puzzle_save_path(const std::string& puzzle_id);

struct SavedCode {
    bool found = false;   // a saved file exists and was read
    std::string text;
    std::string error;    // one sentence when a file exists but cannot be read
};
SavedCode load_saved_code(const std::string& puzzle_id);

// "" when saved; otherwise one sentence saying where and why not (the code stays in the editor).
std::string save_code(const std::string& puzzle_id, const std::string& text);

}  // namespace gpulab::app
