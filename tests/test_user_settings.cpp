// What the window remembers (core/io/user_settings.h): written, read back, a broken or foreign file
// gives the defaults and one sentence, an unwritable folder one sentence, an unknown scale the default.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/user_settings.h"

using namespace gpulab::core;

namespace {

std::filesystem::path fresh_dir(const char* name) {
    const std::filesystem::path d = std::filesystem::temp_directory_path() / ("gpulab-settings-" + std::string(name));
    std::filesystem::remove_all(d);
    return d;
}

}  // namespace

TEST_SUITE("io") {
    TEST_CASE("settings: written and read back - a missing file is the defaults") {
        const std::filesystem::path d = fresh_dir("round-trip");
        const std::string path = (d / "gpulab" / "settings.toml").string();
        LoadedSettings missing = load_user_settings(path);
        CHECK(missing.problem.empty());
        CHECK_FALSE(missing.settings.colour_blind);
        CHECK(missing.settings.ui_scale == 1.0);
        UserSettings s;
        s.colour_blind = true;
        s.ui_scale = 1.5;
        s.reduced_motion = true;
        REQUIRE(save_user_settings(path, s).empty());  // creates the folders
        const LoadedSettings back = load_user_settings(path);
        CHECK(back.problem.empty());
        CHECK(back.settings.colour_blind);
        CHECK(back.settings.ui_scale == 1.5);
        CHECK(back.settings.reduced_motion);
        std::filesystem::remove_all(d);
    }

    TEST_CASE("settings: a broken file is the defaults and a sentence with its line - an odd scale is 1") {
        const std::filesystem::path d = fresh_dir("broken");
        std::filesystem::create_directories(d);
        const std::string path = (d / "settings.toml").string();
        std::ofstream(path) << "palette = \"colour-blind\"\nui_scale = [\n";
        const LoadedSettings broken = load_user_settings(path);
        CHECK_FALSE(broken.settings.colour_blind);
        CHECK(broken.problem.find("could not be read (line 2") != std::string::npos);
        CHECK(broken.problem.find(path) != std::string::npos);
        std::ofstream(path) << "ui_scale = 7.0\npalette = \"colour-blind\"\n";
        const LoadedSettings odd = load_user_settings(path);
        CHECK(odd.problem.empty());
        CHECK(odd.settings.ui_scale == 1.0);
        CHECK(odd.settings.colour_blind);
        // A folder where the file should be: refused with a sentence, not read.
        std::filesystem::remove(path);
        std::filesystem::create_directories(path);
        CHECK(load_user_settings(path).problem.find("is not a small text file") != std::string::npos);
        std::filesystem::remove_all(d);
    }

    TEST_CASE("settings: an unwritable place is one sentence - never a crash") {
        CHECK(save_user_settings("/proc/gpulab-no/settings.toml", {}).find("the settings last until gpulab closes") !=
              std::string::npos);
        CHECK(save_user_settings("", {}).find("No settings folder is known") != std::string::npos);
        CHECK(settings_text({}).find("palette = \"normal\"") != std::string::npos);
    }
}
