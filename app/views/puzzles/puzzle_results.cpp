// The result of a check, in sentences: passed or failed; every defect with its kind, lines and the
// case it showed in (first: it is what to act on); one line per case (the example and the hidden
// ones); the compiler's messages at their lines; what the kernel printed (capped). A defect or a
// message with a line is clicked to move the editor there. And the counts of the example's run
// (draw_counters), labelled as the simulator's exact counts, never a time. Checked by eye in the
// screenshots and by the puzzle GUI tests (the "Passed" line).
#include <algorithm>
#include <cstdio>

#include "puzzle_view.h"
#include "gpu_model/gpu_estimate.h"
#include "measure/format.h"
#include "views/recorded_gpu.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// What the kernel printed is shown up to this much; the check itself keeps at most 64 KiB.
constexpr std::size_t kPrintedShown = 2048;

// A wrapped sentence in the colour of `status`, starting with its mark; true when it was clicked
// and names a line (the hand cursor and an outline say it can be).
bool line_sentence(Status status, const std::string& text, int line) {
    ImGui::BeginGroup();
    text_status(status, text.c_str());
    ImGui::EndGroup();
    if (line <= 0) return false;
    if (ImGui::IsItemHovered()) {
        ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
        ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(),
                                            ImGui::GetColorU32(kMutedColour), 3.0f);
        ImGui::BeginTooltip();
        ImGui::Text("Click: the editor goes to line %d", line);
        ImGui::EndTooltip();
    }
    return ImGui::IsItemClicked(ImGuiMouseButton_Left);
}

void heading(const Fonts& fonts, const char* text) {
    ImGui::Spacing();
    if (fonts.bold) ImGui::PushFont(fonts.bold);
    ImGui::TextUnformatted(text);
    if (fonts.bold) ImGui::PopFont();
}

std::string defect_sentence(const puzzles::Defect& d) {
    std::string s = puzzles::defect_kind_name(d.kind);
    for (std::size_t i = 0; i < d.lines.size(); ++i)
        s += (i == 0 ? (d.lines.size() > 1 ? ", lines " : ", line ") : ", ") + std::to_string(d.lines[i]);
    s += ": " + d.message;
    if (!d.where.empty()) {
        s += " (in " + d.where;
        if (d.repeats > 0) s += " and " + std::to_string(d.repeats) + (d.repeats == 1 ? " more case" : " more cases");
        s += ")";
    }
    return s;
}

}  // namespace

void PuzzleView::draw_results(float width, const Fonts& fonts) {
    Slot& s = *slot_;
    const puzzles::Puzzle& p = *s.puzzle;
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    if (host_.jobs->busy() && running_id_ == s.id)
        ImGui::TextColored(kAccentColour, "checking: %s", host_.jobs->stage().c_str());
    const PuzzleCheck* c = s.check.get();
    if (!c) {
        int hidden = 0;
        for (const puzzles::Case& k : p.cases) hidden += k.visible ? 0 : 1;
        ImGui::TextColored(kMutedColour, "%s", "Nothing checked yet.");
        ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
        if (toolchain_.usable())
            ImGui::TextWrapped("Run (Ctrl+Enter) compiles your kernel and runs it on the example and on %d hidden "
                               "cases, each compared with the reference solution. Every defect the simulator finds is "
                               "said here with its line, block and thread.",
                               hidden);
        else
            ImGui::TextWrapped("Nothing can be checked on this computer until a compiler is installed (the sentence "
                               "above says which package). The example and %d hidden cases wait for it.",
                               hidden);
        ImGui::PopStyleColor();
        ImGui::PopTextWrapPos();
        return;
    }
    CodeEditor& editor = c->of_reference ? s.reference : s.editor;
    heading(fonts, c->of_reference ? "The reference solution's check" : "Your kernel's check");
    const std::string& now = c->of_reference ? p.solution : s.editor.text();
    if (c->code != now) ImGui::TextColored(kMutedColour, "%s", "the code has changed since: Run again");
    const puzzles::CheckResult& r = c->result;
    if (r.compiled && !r.passed && !r.defects.empty() && !r.cases.empty()) {
        // The defects below say what; this line says how much.
        std::size_t passed = 0;
        for (const puzzles::CaseOutcome& k : r.cases) passed += k.passed ? 1 : 0;
        char line[96];
        std::snprintf(line, sizeof line, "Failed: %zu of %zu cases passed, %zu %s.", passed, r.cases.size(),
                      r.defects.size(), r.defects.size() == 1 ? "defect" : "defects");
        text_status(Status::Error, line);
    } else if (!r.compiled && !r.compile.diagnostics.empty()) {
        int errors = 0, warnings = 0;
        for (const puzzles::Diagnostic& d : r.compile.diagnostics) (d.error ? errors : warnings) += 1;
        char line[128];
        std::snprintf(line, sizeof line, "Did not compile: %d %s%s, at %s lines below.", errors,
                      errors == 1 ? "error" : "errors",
                      warnings ? (", " + std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings")).c_str() : "",
                      errors + warnings == 1 ? "its" : "their");
        text_status(Status::Error, line);
    } else if (!r.summary.empty()) {
        text_status(r.passed ? Status::Ok : Status::Error, r.summary.c_str());
    }
    // The same kernel on this machine's GPU (only where there is one and the checks passed): a
    // real time, measured, and whether its outputs match.
    if (r.gpu.tried) {
        text_status(r.gpu.ran && r.gpu.outputs_match ? Status::Ok : Status::Warn, r.gpu.sentence.c_str());
    }

    if (!r.compiled) {
        if (!r.compile.diagnostics.empty()) heading(fonts, "The compiler's messages");
        for (const puzzles::Diagnostic& d : r.compile.diagnostics) {
            std::string text = d.line > 0 ? "line " + std::to_string(d.line) + ":" + std::to_string(d.column) + ": "
                                          : std::string("in the code gpulab adds to call your kernel: ");
            text += d.message;
            ImGui::PushID(&d);
            if (line_sentence(d.error ? Status::Error : Status::Warn, text, d.line) && !c->of_reference == !s.showing_reference)
                editor.go_to_line(d.line);
            ImGui::PopID();
        }
        if (r.compile.diagnostics.empty() && !r.compile.raw.empty()) {
            heading(fonts, "What the compiler said");
            if (fonts.mono) ImGui::PushFont(fonts.mono);
            const std::string raw = r.compile.raw.substr(0, kPrintedShown);
            ImGui::TextUnformatted(raw.c_str());
            if (fonts.mono) ImGui::PopFont();
        }
        ImGui::PopTextWrapPos();
        return;
    }

    if (!r.defects.empty()) {
        char title[64];
        std::snprintf(title, sizeof title, "%s (%zu)", r.defects.size() == 1 ? "Defect" : "Defects", r.defects.size());
        heading(fonts, title);
        for (const puzzles::Defect& d : r.defects) {
            ImGui::PushID(&d);
            const int line = d.lines.empty() ? 0 : d.lines.front();
            if (line_sentence(Status::Error, defect_sentence(d), line) && !c->of_reference == !s.showing_reference)
                editor.go_to_line(line);
            ImGui::PopID();
        }
    }
    // A kernel that did not compile lists every case as not run (for graders); here that says nothing.
    const std::size_t shown_cases = r.compiled ? r.cases.size() : 0;
    if (shown_cases > 0) heading(fonts, "Cases");
    for (std::size_t c = 0; c < shown_cases; ++c) {
        const puzzles::CaseOutcome& k = r.cases[c];
        const std::string name = std::string(k.visible ? "example: " : "hidden: ") + k.name;
        if (!k.ran) {
            // Where the other lines have their mark: the case never started (an earlier one stopped the run).
            ImGui::Dummy({ImGui::GetTextLineHeight(), ImGui::GetTextLineHeight()});
            ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
            ImGui::TextColored(kMutedColour, "%s (not run)", name.c_str());
            continue;
        }
        text_status(k.passed ? Status::Ok : Status::Error, name.c_str());
        if (!k.passed && !k.mismatch.empty()) {
            ImGui::Indent();
            ImGui::TextColored(kMutedColour, "%s", k.mismatch.c_str());
            ImGui::Unindent();
        }
    }
    if (!r.printed.empty()) {
        heading(fonts, "What the kernel printed");
        if (fonts.mono) ImGui::PushFont(fonts.mono);
        ImGui::TextUnformatted(r.printed.substr(0, kPrintedShown).c_str());
        if (fonts.mono) ImGui::PopFont();
        if (r.printed.size() > kPrintedShown)
            ImGui::TextColored(kMutedColour, "... and %zu more bytes", r.printed.size() - kPrintedShown);
    }
    ImGui::PopTextWrapPos();
}

void PuzzleView::draw_counters(const puzzles::CaseOutcome& c, float width) {
    const puzzles::CaseReport& r = c.report;
    const float fs = ImGui::GetFontSize();
    char a[96], b[160];
    auto row = [&](const char* what, const char* value, const char* tip) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(what);
        hover_tip(tip);
        ImGui::TableNextColumn();
        ImGui::TextWrapped("%s", value);
    };
    if (ImGui::BeginTable("##counts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit, {width, 0})) {
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthFixed, fs * 8.5f);
        ImGui::TableSetupColumn("count", ImGuiTableColumnFlags_WidthStretch);
        std::snprintf(a, sizeof a, "%lld in %lld %s", static_cast<long long>(r.threads), static_cast<long long>(r.blocks),
                      r.blocks == 1 ? "block" : "blocks");
        row("threads", a, "Threads launched on the example, and the blocks they came in.");
        std::snprintf(a, sizeof a, "%lld of %lld", static_cast<long long>(r.divergent_warps), static_cast<long long>(r.warps));
        row("divergent warps", a,
            "Warps (32 threads that share each instruction) whose threads took different paths at a branch: the warp "
            "runs each path one after the other, with the other threads idle.");
        std::snprintf(a, sizeof a, "%lld", static_cast<long long>(r.barriers));
        row("barriers", a, "__syncthreads() barriers the blocks passed.");
        if (r.global_requests > 0) {
            const double per = static_cast<double>(r.global_sectors) / static_cast<double>(r.global_requests);
            const double used = r.global_sectors > 0 ? static_cast<double>(r.global_bytes) / (32.0 * static_cast<double>(r.global_sectors)) : 0.0;
            std::snprintf(b, sizeof b, "%.2f sectors per request (%lld requests, %lld sectors); %.0f %% of the bytes moved were used",
                          per, static_cast<long long>(r.global_requests), static_cast<long long>(r.global_sectors),
                          100.0 * std::min(1.0, used));
        } else {
            std::snprintf(b, sizeof b, "no requests");
        }
        row("global memory", b,
            "A warp's loads or stores of one instruction are one request; memory moves in 32-byte sectors. 32 "
            "threads reading 32 floats side by side need 4 sectors; scattered addresses need up to 32.");
        if (r.shared_requests > 0) {
            std::snprintf(b, sizeof b, "%.2f wavefronts per request (%lld requests, %lld wavefronts)",
                          static_cast<double>(r.shared_wavefronts) / static_cast<double>(r.shared_requests),
                          static_cast<long long>(r.shared_requests), static_cast<long long>(r.shared_wavefronts));
        } else {
            std::snprintf(b, sizeof b, "not used");
        }
        row("shared memory", b,
            "Shared memory has 32 banks of 4 bytes; a warp's request takes one pass (wavefront) when no two of its "
            "threads need different words of the same bank. More wavefronts per request: bank conflicts.");
        // What these counts would cost on a GPU, by the model every lesson's estimate uses (one launch,
        // the sectors' bytes at the memory's bandwidth; copies left out, as a kernel time is): never a
        // measurement, and said so.
        if (r.clean && r.global_sectors > 0) {
            core::KernelWork work;
            work.data_bytes = 32 * r.global_sectors;
            const core::PublishedGpu& gpu = estimated_gpu();
            const core::GpuEstimate e = core::estimate_gpu_time(work, gpu);
            std::snprintf(b, sizeof b, "about %s, %s-bound: %s, not a measurement", core::format_duration(e.kernel_ns).c_str(),
                          e.bound, core::estimate_source(gpu).c_str());
            row("GPU estimate", b,
                "From the sectors counted above and the GPU's published memory bandwidth, plus one launch "
                "(core/gpu_model/gpu_estimate.h). An example this small is all launch: the GPU pays off when "
                "millions of threads share that cost.");
        }
        ImGui::EndTable();
    }
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    if (!r.clean) ImGui::TextColored(kWarnColour, "%s", "Counted up to where the example stopped at its defect.");
    ImGui::TextColored(kMutedColour, "%s",
                       "Exact counts of gpulab's simulator for its memory model (warps of 32, 32-byte sectors, 32 "
                       "banks): the same on every machine. Not a time, and not a GPU's speed.");
    ImGui::PopTextWrapPos();
}

}  // namespace gpulab::app
