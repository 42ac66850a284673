// The step text's pages (app/shell/paged_text.h): where a text taller than its panel is cut. A
// page ends at a paragraph when that leaves it at least three fifths full, else at the last whole
// line, and every page fits; the drawing itself is checked by the layout check and the GUI test.
#include <doctest/doctest.h>

#include <vector>

#include "widgets/paged_text.h"

using gpulab::app::page_offsets;

TEST_SUITE("gui") {
    TEST_CASE("step text pages: whole lines - paragraphs preferred - each page within its height") {
        // Lines every 20 px; paragraphs start at 0, 100 and 250; 400 px of text on 130 px pages.
        std::vector<float> lines;
        for (float y = 0; y < 400; y += 20) lines.push_back(y);
        const std::vector<float> paragraphs = {0, 100, 250};
        const std::vector<float> pages = page_offsets(lines, paragraphs, 400, 130);
        // Page 1: the paragraph at 100 leaves it 77 % full; page 2 from 100: no paragraph within
        // (100, 230], so the last line that fits, 220; page 3: the paragraph at 250 would leave it
        // 23 % full, so the line at 340; then the rest fits.
        REQUIRE(pages.size() == 4);
        CHECK(pages[0] == 0);
        CHECK(pages[1] == 100);
        CHECK(pages[2] == 220);
        CHECK(pages[3] == 340);
        for (std::size_t i = 1; i < pages.size(); ++i) CHECK(pages[i] - pages[i - 1] <= 130);
        // Text that fits: one page. A stretch with no line start inside a page: cut at its height.
        CHECK(page_offsets(lines, paragraphs, 120, 130).size() == 1);
        const std::vector<float> tall = page_offsets({0}, {0}, 300, 130);
        REQUIRE(tall.size() == 3);
        CHECK(tall[1] == 130);
        CHECK(tall[2] == 260);
        // A page height of nothing never loops.
        CHECK(page_offsets(lines, paragraphs, 400, 0).size() == 1);
    }
}
