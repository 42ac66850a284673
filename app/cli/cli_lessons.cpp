// `gpulab lessons`: lists the lessons with their status, or validates files with --check (lesson
// files, and kernel puzzles: a puzzle's folder or its puzzle.toml).
// Checked by tests/cli_tests.cmake (list, good file, broken files, an id another lesson uses).
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cli.h"
#include "shell/lesson_directories.h"
#include "lesson/lesson.h"
#include "render/resources.h"

namespace gpulab::app {

int cmd_lessons(const std::vector<std::string>& check_files, const std::vector<std::string>& lesson_dirs) {
    if (!check_files.empty()) {
        // A file that parses can still be refused at start-up when another lesson already has its
        // id (the built-in ones load first), so the check compares with what the app would load.
        const core::LessonCatalog loaded = core::load_lessons(lesson_directories(lesson_dirs));
        int problems = 0;
        for (const auto& file : check_files) {
            // A kernel puzzle (its folder or its puzzle.toml) is checked as one.
            std::error_code dir_ec;
            if (std::filesystem::path(file).filename() == "puzzle.toml" ||
                std::filesystem::exists(std::filesystem::path(file) / "puzzle.toml", dir_ec)) {
                problems += check_puzzle_folder(file);
                continue;
            }
            core::LessonLoad load = core::parse_lesson_file(file);
            if (load.lesson) {
                const core::Lesson* other = loaded.find(load.lesson->id);
                std::error_code ec;
                if (other && !std::filesystem::equivalent(other->source, file, ec)) {
                    load.errors.push_back({file, load.lesson->id_line, 1, "lesson id '" + load.lesson->id + "' is already used by " +
                                                           other->source + ": pick another id (and file name)"});
                    load.lesson.reset();
                }
            }
            for (const auto& e : load.errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
            problems += static_cast<int>(load.errors.size());
            if (load.lesson) {
                std::printf("%s: ok (%s, %zu steps)\n", file.c_str(), load.lesson->id.c_str(), load.lesson->steps.size());
            }
        }
        return problems == 0 ? kExitOk : kExitFailure;
    }
    std::vector<std::string> dirs = lesson_directories(lesson_dirs);
    if (dirs.empty()) {
        std::fprintf(stderr, "gpulab: %s\n", data_root_problem().c_str());
        return kExitFailure;
    }
    core::LessonCatalog cat = core::load_lessons(dirs);
    for (const auto& l : cat.lessons) {
        std::printf("%-26s %-8s %-34s %zu step%s\n", l.id.c_str(), l.coming ? "coming" : "ready", l.title.c_str(),
                    l.steps.size(), l.steps.size() == 1 ? "" : "s");
    }
    for (const auto& e : cat.errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
    return kExitOk;
}

}  // namespace gpulab::app
