// libFuzzer target for lesson files (core/lesson/lesson.cpp): parse_lesson_text runs the deep-key scan,
// toml++ and every check of the lesson model. It must return a lesson or errors, never crash or
// throw; every error it gives must carry the file name.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lesson/lesson.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const gpulab::core::LessonLoad load = gpulab::core::parse_lesson_text(text, "fuzz.toml");
    for (const auto& e : load.errors) {
        if (e.file != "fuzz.toml" || e.message.empty()) __builtin_trap();
    }
    if (!load.lesson && load.errors.empty()) __builtin_trap();  // refused without saying why
    return 0;
}
