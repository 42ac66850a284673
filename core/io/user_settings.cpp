// See user_settings.h. toml++ reads it, as it reads the lesson files.
#include "user_settings.h"

#include <toml++/toml.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "file_io.h"

namespace gpulab::core {

namespace {

constexpr double kScales[] = {1.0, 1.25, 1.5, 2.0};

}  // namespace

std::string user_settings_path() {
    const char* config = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    if (config && *config) return (std::filesystem::path(config) / "gpulab" / "settings.toml").string();
    if (home && *home) return (std::filesystem::path(home) / ".config" / "gpulab" / "settings.toml").string();
    return "";
}

LoadedSettings load_user_settings(const std::string& path) {
    LoadedSettings out;
    if (path.empty()) return out;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return out;
    // A settings file is a few lines: anything large is not one (and is not read into memory).
    if (!std::filesystem::is_regular_file(path, ec) || std::filesystem::file_size(path, ec) > 64 * 1024) {
        out.problem = "The settings file " + path + " is not a small text file: gpulab uses its defaults.";
        return out;
    }
    try {
        const toml::table t = toml::parse_file(path);
        const auto palette = t["palette"].value<std::string>();
        if (palette) out.settings.colour_blind = *palette == "colour-blind";
        if (const auto scale = t["ui_scale"].value<double>()) {
            for (double s : kScales)
                if (*scale == s) out.settings.ui_scale = s;
        }
        if (const auto motion = t["reduced_motion"].value<bool>()) out.settings.reduced_motion = *motion;
    } catch (const toml::parse_error& e) {
        out.settings = {};
        out.problem = "The settings file " + path + " could not be read (line " +
                      std::to_string(e.source().begin.line) + ": " + std::string(e.description()) +
                      "): gpulab uses its defaults and rewrites it when a setting changes.";
    }
    return out;
}

std::string settings_text(const UserSettings& s) {
    std::ostringstream o;
    o << "# gpulab's window settings, written when they change (View menu, F8, + / -).\n";
    o << "palette = \"" << (s.colour_blind ? "colour-blind" : "normal") << "\"\n";
    o << "ui_scale = " << s.ui_scale << "\n";
    o << "reduced_motion = " << (s.reduced_motion ? "true" : "false") << "\n";
    return o.str();
}

std::string save_user_settings(const std::string& path, const UserSettings& s) {
    if (path.empty()) return "No settings folder is known (neither XDG_CONFIG_HOME nor HOME is set): the settings last until gpulab closes.";
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    if (ec)
        return "Cannot create " + std::filesystem::path(path).parent_path().string() + " (" + ec.message() +
               "): the settings last until gpulab closes.";
    const std::string error = write_output_file(path, settings_text(s));
    return error.empty() ? "" : error + ": the settings last until gpulab closes.";
}

}  // namespace gpulab::core
