// paged_text.h's cutting of a text into pages: plain arithmetic on heights, no ImGui, so the tests
// link it alone (tests/test_paged_text.cpp).
#include <algorithm>
#include <iterator>

#include "paged_text.h"

namespace gpulab::app {

std::vector<float> page_offsets(const std::vector<float>& cuts, const std::vector<float>& breaks, float total_h,
                                float page_h) {
    std::vector<float> pages = {0.0f};
    if (page_h <= 0.0f) return pages;
    // The last point of `points` in (from, limit], or none.
    const auto last_within = [](const std::vector<float>& points, float from, float limit) -> float {
        const auto after = std::upper_bound(points.begin(), points.end(), limit);
        return after != points.begin() && *std::prev(after) > from + 0.5f ? *std::prev(after) : -1.0f;
    };
    while (pages.back() + page_h < total_h) {
        const float from = pages.back(), limit = from + page_h;
        // A paragraph's start when the page is at least three fifths full there (a sentence then
        // never runs on to the next page), else the last line that fits, else the page's height.
        float next = last_within(breaks, from, limit);
        if (next < from + page_h * 0.6f) next = last_within(cuts, from, limit);
        if (next < 0.0f) next = limit;
        pages.push_back(next);
    }
    return pages;
}

}  // namespace gpulab::app
