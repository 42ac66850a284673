// Where lessons come from: the built-in folder, the user's config folder, --lesson-dir folders.
#include "lesson_directories.h"

#include <cstdlib>
#include <system_error>

#include "render/resources.h"

namespace gpulab::app {

std::filesystem::path user_lesson_directory() {
    // The XDG base-directory convention: $XDG_CONFIG_HOME, else ~/.config.
    const char* config = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    if (config && *config) return std::filesystem::path(config) / "gpulab" / "lessons";
    if (home && *home) return std::filesystem::path(home) / ".config" / "gpulab" / "lessons";
    return {};
}

std::vector<std::string> lesson_directories(const std::vector<std::string>& extra) {
    std::vector<std::string> dirs;
    std::filesystem::path builtin = find_resource("lessons");
    if (!builtin.empty()) dirs.push_back(builtin.string());
    // An instructor's own lessons load without flags when they live in the user's config folder;
    // the folder is optional, so a missing one is not an error.
    std::error_code ec;
    const std::filesystem::path user = user_lesson_directory();
    if (!user.empty() && std::filesystem::is_directory(user, ec)) dirs.push_back(user.string());
    dirs.insert(dirs.end(), extra.begin(), extra.end());
    return dirs;
}

}  // namespace gpulab::app
