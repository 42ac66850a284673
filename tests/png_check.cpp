// gpulab_png_check FILE [MIN_COLOURS] [MIN_WIDTH] [MIN_HEIGHT]: exits 0 when FILE is a PNG that
// is not blank (at least MIN_COLOURS distinct colours, default 64, and visible contrast), else
// prints why and exits 1. Used by tests/gui_tests.cmake on exported and screenshot PNGs.
#include <stb/stb_image.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: gpulab_png_check FILE [MIN_COLOURS] [MIN_WIDTH] [MIN_HEIGHT]\n");
        return 2;
    }
    const long min_colours = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 64;
    const long min_w = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 1;
    const long min_h = argc > 4 ? std::strtol(argv[4], nullptr, 10) : 1;
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(argv[1], &w, &h, &n, 4);
    if (!px) {
        std::fprintf(stderr, "%s: cannot read PNG: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    std::unordered_set<uint32_t> colours;
    double sum = 0, sum2 = 0;
    const std::size_t count = static_cast<std::size_t>(w) * h;
    for (std::size_t i = 0; i < count; ++i) {
        const unsigned char* p = px + i * 4;
        colours.insert(uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16);
        const double y = 0.299 * p[0] + 0.587 * p[1] + 0.114 * p[2];
        sum += y;
        sum2 += y * y;
    }
    stbi_image_free(px);
    const double mean = sum / static_cast<double>(count);
    const double stddev = std::sqrt(std::max(0.0, sum2 / static_cast<double>(count) - mean * mean));
    std::printf("%s: %dx%d, %zu colours, luminance mean %.1f stddev %.1f\n", argv[1], w, h, colours.size(), mean,
                stddev);
    if (w < min_w || h < min_h) {
        std::fprintf(stderr, "%s: %dx%d is smaller than %ldx%ld\n", argv[1], w, h, min_w, min_h);
        return 1;
    }
    if (static_cast<long>(colours.size()) < min_colours || stddev < 5.0) {
        std::fprintf(stderr, "%s: looks blank (%zu colours, stddev %.1f)\n", argv[1], colours.size(), stddev);
        return 1;
    }
    return 0;
}
