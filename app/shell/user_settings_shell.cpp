// The Shell's side of core/io/user_settings.h: what the window remembers between runs (the palette,
// the UI scale, reduced motion), applied at start and written when one changes. A file that cannot
// be read or written is said once in the Controls panel's grey line and never stops the window.
// Checked by gui.settings_remembered (tests/gui_tests.cmake).
#include <cstdio>
#include <iterator>

#include "shell.h"
#include "widgets/presenter_palette.h"

namespace gpulab::app {

void Shell::use_user_settings(const std::string& path) {
    settings_path_ = path;
    const core::LoadedSettings loaded = core::load_user_settings(path);
    if (!loaded.problem.empty()) {
        host_.info = loaded.problem;
        std::fprintf(stderr, "gpulab: %s\n", loaded.problem.c_str());
    }
    set_colour_blind_palette(loaded.settings.colour_blind);
    presenter_.reduced_motion = loaded.settings.reduced_motion;
    for (int i = 0; i < static_cast<int>(std::size(kUserScales)); ++i)
        if (kUserScales[i] == loaded.settings.ui_scale) user_scale_index_ = i;
    saved_settings_ = current_settings();
    settings_on_ = true;
}

core::UserSettings Shell::current_settings() const {
    core::UserSettings s;
    s.colour_blind = colour_blind_palette();
    s.ui_scale = kUserScales[user_scale_index_];
    s.reduced_motion = presenter_.reduced_motion;
    return s;
}

void Shell::save_settings_if_changed() {
    if (!settings_on_) return;
    const core::UserSettings now = current_settings();
    if (now == saved_settings_) return;
    saved_settings_ = now;  // tried once per change: a folder that refuses is not retried every frame
    if (const std::string error = core::save_user_settings(settings_path_, now); !error.empty()) {
        host_.info = error;
        std::fprintf(stderr, "gpulab: %s\n", error.c_str());
    }
}

}  // namespace gpulab::app
