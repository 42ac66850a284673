// What the window remembers between runs (issue 41, item 8): the colour-blind-safe palette, the UI
// scale and reduced motion, in ($XDG_CONFIG_HOME or ~/.config)/gpulab/settings.toml. A missing file
// is the defaults; a broken one is the defaults and one sentence, and is overwritten only when a
// setting changes. Written through write_output_file (never cut). Verified by
// tests/test_user_settings.cpp.
#pragma once

#include <string>

namespace gpulab::core {

struct UserSettings {
    bool colour_blind = false;
    double ui_scale = 1.0;  // one of the window's presets (1, 1.25, 1.5, 2); others read as 1
    bool reduced_motion = false;
    bool operator==(const UserSettings&) const = default;
};

// ($XDG_CONFIG_HOME or ~/.config)/gpulab/settings.toml; empty when neither variable is set.
std::string user_settings_path();

struct LoadedSettings {
    UserSettings settings;
    std::string problem;  // "" or why the file was not used, one sentence with its path
};
LoadedSettings load_user_settings(const std::string& path);

// The settings as TOML, with a comment saying what wrote them.
std::string settings_text(const UserSettings& s);
// Creates the folder when missing; "" on success, else one sentence.
std::string save_user_settings(const std::string& path, const UserSettings& s);

}  // namespace gpulab::core
