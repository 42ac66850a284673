// The licence the source tree states (LICENSE) is the one the .deb's copyright file grants: the
// same MIT (Expat) text, word for word once Debian's continuation-line markup is taken away.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string read_text(const std::string& path) {
    std::ifstream f(path);
    REQUIRE_MESSAGE(f.good(), "cannot read " << path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Words separated by single spaces; a Debian paragraph-break line (" .") is only markup.
std::string words(const std::string& text) {
    std::istringstream in(text);
    std::string w, out;
    while (in >> w) {
        if (w == ".") continue;
        out += (out.empty() ? "" : " ") + w;
    }
    return out;
}

}  // namespace

TEST_SUITE("package") {
    TEST_CASE("LICENSE is MIT and the .deb's copyright file grants the same text") {
        const std::string licence = read_text(std::string(GPULAB_SOURCE_DIR) + "/LICENSE");
        const std::string copyright = read_text(std::string(GPULAB_SOURCE_DIR) + "/cmake/package/copyright");
        CHECK(licence.rfind("MIT License", 0) == 0);
        // From "Permission is hereby granted" to the end: the grant and the disclaimer.
        const std::string grant = words(licence.substr(licence.find("Permission is hereby granted")));
        INFO(grant);
        CHECK(words(copyright).find(grant) != std::string::npos);
        CHECK(copyright.find("License: Expat") != std::string::npos);
        CHECK(copyright.find("not-yet-chosen") == std::string::npos);
    }
}
