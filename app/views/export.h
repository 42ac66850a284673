// Export of a measurement as files a student can put in a report: the timing panel with its
// caption block as PNG (rendered through a second ImGui context into an offscreen framebuffer),
// the whole window as PNG, every sample as CSV and a per-backend summary CSV. Used by F12 / the
// Export button and by `gpulab export`; tests/gui_tests.cmake checks the files and the pixels.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pending_files.h"
#include "widgets/fonts.h"
#include "timing_plot.h"
#include "workloads/activation_workload.h"

namespace gpulab::app {

struct ExportInput {
    std::string out_dir;
    std::string lesson_id;
    std::string lesson_title;
    const core::ActivationRun* run = nullptr;
    const SampleHistory* history = nullptr;
    Pixels window_rgba;                // null or empty: no window picture
    int window_width = 0, window_height = 0;
    float ui_scale = 1.0f;             // the timing PNG is drawn at this scale
    const core::ImportedRun* other = nullptr;  // another machine's run to draw beside this one
};

// Needs a current GL 3.3 context (for the timing PNG). Never throws; files already written stay.
ExportResult write_export(const ExportInput& in);

// The CSV pieces on their own (no GL), for tests and the CLI.
std::string samples_csv(const core::ActivationRun& run, const std::vector<std::string>& caption);
// `other`: a shipped GPU recording's rows are written after this machine's, each row saying in its
// last column ("source", issue 39) where it was measured; another machine's file adds no rows.
std::string summary_csv(const core::ActivationRun& run, const std::vector<std::string>& caption,
                        const core::ImportedRun* other = nullptr);

// The first lines of every lesson's caption, which say where and when the numbers were measured:
// "gpulab <version>  |  <lesson>  |  <date>", "CPU: <model> (<n> threads), <os>", the GPU (or
// "no GPU: <reason>") and the library versions. core/compare/compare_import.cpp reads them back.
// The result on screen was measured on another computer (imported with `gpulab prerun --import`):
// that computer's label, which the captions then name instead of this one's. "" for this computer.
// Set when a view shows a cached result (ViewHost::show_cached), cleared when a run starts here.
void set_shown_result_machine(std::string other_machine_label);
const std::string& shown_result_machine();
// The source column of the rows of the result on screen: "measured here", or "measured on <the
// other computer>" when shown_result_machine() is set.
std::string shown_result_source();
// `csv` (caption lines, then tables separated by blank lines) with a last column "source" added to
// every table: the header gains ",source", every row ",<source>" (quoted where it must be).
std::string with_source_column(const std::string& csv, const std::string& source);

std::vector<std::string> machine_caption_lines(std::string_view lesson_title, int64_t started_unix_s);

// A picture's heading in the bold font: the first line of every exported panel.
void draw_export_heading(const Fonts& fonts, const std::string& text);

// Draws one auto-sized window with `draw` in a fresh ImGui context (fonts and style at
// `ui_scale`, at least 1) into an offscreen framebuffer `logical_width` * scale pixels wide and
// writes it as PNG, cropped to the window's height. Needs a current GL 3.3 context; never throws.
bool render_panel_png(float ui_scale, int logical_width, const std::string& path, std::string& error,
                      const std::function<void(const Fonts&, float)>& draw);

// The mechanics every lesson's export shares: the folder (created, or one clear message), file
// names `<lesson>-<suffix>`, CSV text, pictures, and the closing "exported N files to DIR" line.
// Each step stops at the first failure; files already written stay.
class ExportWriter {
public:
    ExportWriter(const std::string& out_dir, const std::string& lesson_id);
    bool ok() const { return ok_; }
    std::filesystem::path path(const std::string& suffix) const { return dir_ / (stem_ + suffix); }
    // Writes `content` to path(suffix); false (with the message set) on failure.
    bool text(const std::string& suffix, const std::string& content);
    // Records a file another function wrote (render_panel_png); `error` when it failed.
    bool picture(const std::filesystem::path& file, bool written, const std::string& error);
    // Adds <lesson>-window.png when `window_rgba` is not empty, then the result.
    ExportResult finish(const Pixels& window_rgba, int width, int height);
    // The result so far: ok=false with the failure message.
    ExportResult failed() const { return result_; }

private:
    std::filesystem::path dir_;
    std::string stem_;
    bool ok_ = true;
    ExportResult result_;
};

}  // namespace gpulab::app
