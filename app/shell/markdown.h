// Renders the lesson text's Markdown subset with ImGui: paragraphs (blank line), "- " bullets,
// **bold** and `code`, word-wrapped to the window. Anything else is shown as plain text, so a
// typo in a lesson file is visible rather than lost. Checked by eye in the GUI screenshot.
#pragma once

#include <string_view>

#include "widgets/fonts.h"

namespace gpulab::app {

void render_markdown(std::string_view text, const Fonts& fonts);

}  // namespace gpulab::app
