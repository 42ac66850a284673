// A font file made safe to hand to ImGui (issue 31, item 2): read through the checked door
// (core/io/file_io.h: a regular file, at most 32 MiB), then opened and a few glyphs baked by
// stb_truetype, the parser inside ImGui, in a child process. A cut or garbage file would otherwise
// crash the app inside ImGui's atlas build (Debian's ImGui keeps its assertions on, and
// stb_truetype does not check a font's tables); in the child it only ends the child. The verdict
// is kept per path, so a rescale does not try again.
#pragma once

#include <string>
#include <vector>

namespace gpulab::app {

struct FontFile {
    std::vector<unsigned char> bytes;  // the whole file, when usable
    std::string problem;               // why not: one sentence naming the file
};

FontFile read_checked_font(const std::string& path);

}  // namespace gpulab::app
