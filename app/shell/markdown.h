// Renders the lesson text's Markdown subset with ImGui: paragraphs (blank line), "- " bullets,
// **bold** and `code`, word-wrapped to the window. Anything else is shown as plain text, so a
// typo in a lesson file is visible rather than lost. Checked by eye in the GUI screenshot.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "widgets/fonts.h"

namespace gpulab::app {

void render_markdown(std::string_view text, const Fonts& fonts);

// The same text as blocks: a paragraph (its lines joined) or one bullet item each, so the step text
// can be laid out a page at a time (paged_text.h).
struct MarkdownBlock {
    bool bullet = false;
    std::string text;
};
std::vector<MarkdownBlock> markdown_blocks(std::string_view text);
// Block `i` of `blocks` from the cursor, wrapped to the window, after the space render_markdown
// leaves before it (a paragraph keeps a line's spacing on each side; bullets of one list sit close).
void render_markdown_block(const std::vector<MarkdownBlock>& blocks, std::size_t i, const Fonts& fonts);


}  // namespace gpulab::app
