// See font_check.h. The trial runs in a fork()ed child because a font that breaks stb_truetype
// breaks it with a crash, not an error code; the child does nothing but parse and bake in its own
// copy of the bytes, then _exit()s.
#include "font_check.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <thread>

#include <stb/stb_truetype.h>

#include "io/file_io.h"

namespace gpulab::app {

namespace {

constexpr long long kMaxFontBytes = 32LL << 20;

// What the child checks: the font opens, has a glyph for 'A', and its Latin glyphs bake.
bool font_parses(const unsigned char* data) {
    const int offset = stbtt_GetFontOffsetForIndex(data, 0);
    if (offset < 0) return false;
    stbtt_fontinfo info;
    if (!stbtt_InitFont(&info, data, offset)) return false;
    if (stbtt_FindGlyphIndex(&info, 'A') == 0) return false;
    static unsigned char pixels[512 * 512];
    stbtt_bakedchar chars[96];
    return stbtt_BakeFontBitmap(data, offset, 24.0f, pixels, 512, 512, 32, 96, chars) != 0;
}

// "" when a child parsed and baked the font, else why not.
std::string trial_in_child(const std::vector<unsigned char>& bytes) {
    const pid_t pid = fork();
    if (pid < 0) return "";  // no child to try in: trust the file rather than refuse every font
    if (pid == 0) {
        // The child's own messages (stb_truetype's assertions) are not the user's business.
        const int null_fd = open("/dev/null", O_WRONLY);
        if (null_fd >= 0) dup2(null_fd, STDERR_FILENO);
        _exit(font_parses(bytes.data()) ? 0 : 1);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    int status = 0;
    for (;;) {
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) break;
        if (done < 0) return "";
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return "reading its glyphs did not finish in 5 seconds";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
    if (WIFSIGNALED(status)) return "its tables are broken (reading them crashed a test process)";
    return "it is not a TrueType or OpenType font with Latin letters";
}

}  // namespace

FontFile read_checked_font(const std::string& path) {
    static std::map<std::string, FontFile> verdicts;  // the UI thread's: fonts load there
    if (auto it = verdicts.find(path); it != verdicts.end()) return it->second;
    FontFile f;
    try {
        const std::string text = core::read_input_file(path, kMaxFontBytes, "font");
        f.bytes.assign(text.begin(), text.end());
        if (f.bytes.size() < 12) f.problem = "it is too short to be a font";
        else if (std::string why = trial_in_child(f.bytes); !why.empty()) f.problem = why;
        if (!f.problem.empty()) f.problem = "the font " + path + " cannot be used: " + f.problem;
    } catch (const std::exception& e) {
        f.problem = std::string("the font cannot be read: ") + e.what();
    }
    if (!f.problem.empty()) f.bytes.clear();
    verdicts[path] = f;
    return f;
}

}  // namespace gpulab::app
