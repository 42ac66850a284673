// What every lesson's "this lab machine vs my laptop" comparison shares: loading another machine's
// export into a view (refusing another lesson's file with one line), the two lines that name both
// machines, the legend swatches, the caption lines of an exported PNG and the closing part of the
// export message. The per-lesson pictures are in app/views/latency/latency_compare.cpp,
// app/views/simd_mimd/simd_compare.cpp and app/views/conv2d/conv2d_compare.cpp; the activation lesson keeps its
// own (app/views/timing_plot.cpp). Verified by the compare.* tests (tests/compare_tests.cmake) and by eye
// in the exported PNGs and the GUI screenshot.
#pragma once

#include <imgui.h>

#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compare/compare_import.h"
#include "lesson_view.h"

namespace gpulab::app {

// How the legend draws the other machine beside the words naming it.
enum class CompareSwatch {
    Bars,   // solid bar for this machine, outlined and hatched for the other
    Lines,  // thick line with dots for this machine, thin lighter line with hollow dots for the other
    None,   // a table: the column titles say which is which
};

// "this machine: <cpu>, <gpu or no GPU>"
std::string this_machine_text();
// "other machine: <cpu>, <gpu or no GPU>, <date>", or for a shipped GPU recording (issue 39)
// "recorded on NVIDIA H200, 2026-11-28; not this computer".
std::string other_machine_text(const core::ImportedMachine& other);
// How a bar, a curve or a table column names it: "other machine", or "recorded GPU run".
std::string other_name(const core::ImportedMachine& other);
// The prefix of its values beside this machine's: "other: " or "recorded: ".
std::string other_value_prefix(const core::ImportedMachine& other);

// Caption lines for an exported PNG: one line per machine, then `what` (how the other machine
// is drawn) or, when the measurements differ, `mismatch` instead, said first.
std::vector<std::string> compare_caption_lines(const core::ImportedMachine& other, const std::string& what,
                                               const std::string& mismatch);

// Both machines, one line each with its swatch, then `mismatch` in red when not empty.
void draw_compare_legend(const core::ImportedMachine& other, CompareSwatch swatch, const std::string& mismatch,
                         float width);

// "; compared with other machine: <label>, <date>[ (<mismatch>)]", appended to an export's message.
std::string compare_export_note(const core::ImportedMachine& other, const std::string& mismatch);

// An outlined bar filled with diagonal strokes: the other machine's value, told apart from a solid
// bar by shape as well as colour, so it survives a grey-scale print.
void draw_hatched_bar(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour);

// Reads `path` as an export of a `workload` lesson and converts it with `convert` into `other`.
// On failure: false, `error` set, `other` (a comparison already shown) kept. On success the host's
// grey line names the other machine.
template <typename Imported, typename Convert>
bool load_other_machine(const std::string& path, std::string_view workload, Convert convert, ViewHost& host,
                        std::unique_ptr<Imported>& other, std::string& error) {
    try {
        const core::CompareFile file = core::load_compare_file(path);
        core::require_workload(file, workload);
        other = std::make_unique<Imported>(convert(file));
        host.info = "comparing with " + other_machine_text(*other);
        host.error.clear();
        return true;
    } catch (const std::exception& e) {
        error = e.what();
        host.error = error;
        return false;
    }
}

}  // namespace gpulab::app
