// See puzzle_store.h.
#include "puzzle_store.h"

#include <unistd.h>

#include <cstdlib>
#include <system_error>

#include "io/file_io.h"
#include "io/image_io.h"

namespace gpulab::app {

namespace fs = std::filesystem;

namespace {

// A saved kernel is one short file; anything larger is not what the editor wrote.
constexpr std::int64_t kMaxSavedBytes = 1 << 20;

bool plain_name(const std::string& id) {
    if (id.empty() || id.size() > 100 || id[0] == '.') return false;
    for (char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
            return false;
    return true;
}

}  // namespace

fs::path puzzle_save_dir() {
    // The XDG base-directory convention, as for the user's own lessons (lesson_directories.cpp).
    const char* config = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    if (config && *config) return fs::path(config) / "gpulab" / "puzzles";
    if (home && *home) return fs::path(home) / ".config" / "gpulab" / "puzzles";
    return {};
}

fs::path puzzle_save_path(const std::string& puzzle_id) {
    const fs::path dir = puzzle_save_dir();
    if (dir.empty() || !plain_name(puzzle_id)) return {};
    return dir / (puzzle_id + ".cu");
}

SavedCode load_saved_code(const std::string& puzzle_id) {
    SavedCode out;
    const fs::path path = puzzle_save_path(puzzle_id);
    std::error_code ec;
    if (path.empty() || !fs::exists(path, ec)) return out;
    try {
        out.text = core::read_input_file(path.string(), kMaxSavedBytes, "saved kernel");
        out.found = true;
    } catch (const std::exception& e) {
        out.error = std::string("Your saved code could not be read (") + e.what() +
                    "); the editor starts from the skeleton and the file is left as it is until you edit.";
    }
    return out;
}

std::string save_code(const std::string& puzzle_id, const std::string& text) {
    const fs::path path = puzzle_save_path(puzzle_id);
    if (path.empty()) {
        return "Your code is not saved: neither XDG_CONFIG_HOME nor HOME is set, so there is no folder to keep it in. "
               "It stays in the editor while gpulab runs.";
    }
    const auto unsaved = [&](const std::string& why) {
        return "Your code is not saved to " + path.string() + " (" + why +
               "). It stays in the editor while gpulab runs: copy it somewhere safe before closing.";
    };
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) return unsaved("cannot create the folder: " + ec.message());
    // Replaced whole (core::write_output_file): a crash mid-save keeps the previous version.
    if (const std::string why = core::write_output_file(path.string(), text); !why.empty()) return unsaved(why);
    return "";
}

}  // namespace gpulab::app
