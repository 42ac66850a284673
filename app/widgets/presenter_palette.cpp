// Colour-blind-safe palette: see presenter_palette.h.
#include "presenter_palette.h"

#include <atomic>
#include <cstdint>

namespace gpulab::app {

namespace {

std::atomic<bool> g_colour_blind{false};

struct Rgb {
    uint8_t r, g, b;
};

// Okabe & Ito (2008), "Color Universal Design": orange, sky blue, bluish green, yellow, blue,
// vermillion, reddish purple. CPU backends take the warm colours, GPU backends the cool ones,
// so "warm = CPU, cool = GPU" still holds for viewers who can tell them apart.
constexpr Rgb kOrange{230, 159, 0}, kSkyBlue{86, 180, 233}, kBluishGreen{0, 158, 115}, kYellow{240, 228, 66},
    kBlue{0, 114, 178}, kVermillion{213, 94, 0}, kReddishPurple{204, 121, 167};

ImU32 to_u32(Rgb c, float alpha) {
    return IM_COL32(c.r, c.g, c.b, static_cast<int>(alpha * 255.0f + 0.5f));
}

}  // namespace

void set_colour_blind_palette(bool on) { g_colour_blind = on; }

bool colour_blind_palette() { return g_colour_blind; }

ImU32 okabe_ito_backend_color(std::string_view backend, float alpha) {
    struct Entry {
        std::string_view name;
        Rgb c;
    };
    static constexpr Entry kKnown[] = {
        {"cpu-scalar", kVermillion}, {"cpu-parallel", kOrange}, {"cpu-onednn", kReddishPurple},
        {"cuda-kernel", kBluishGreen}, {"cudnn", kSkyBlue},
    };
    for (const auto& e : kKnown)
        if (e.name == backend) return to_u32(e.c, alpha);
    static constexpr Rgb kRest[] = {kYellow, kBlue};
    uint32_t h = 2166136261u;
    for (char ch : backend) h = (h ^ static_cast<uint8_t>(ch)) * 16777619u;
    return to_u32(kRest[h % 2], alpha);
}

}  // namespace gpulab::app
