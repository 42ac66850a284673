// The kernel puzzles' canvas and Timing panel: the toolbar (Run or the missing compiler's
// sentence, Cancel with the check's stage, Reset, the reference), the editor and the results
// beside it when the canvas is wide enough for about 100 columns of code and results, else the
// editor alone with the results moved to the Timing panel (presenter mode at 2x: the room reads
// the code at full width). The confirmations before Reset and before showing the reference.
#include <cmath>

#include "puzzle_store.h"
#include "puzzle_view.h"
#include "puzzles/sandbox.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// A turning arc one text line tall: the check is running (drawn at the window's frame rate, 4 a
// second while the worker is busy).
void spinner() {
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 c{p.x + h * 0.5f, p.y + h * 0.5f};
    const float t = static_cast<float>(ImGui::GetTime()) * 6.0f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->PathArcTo(c, h * 0.36f, t, t + 4.4f, 20);
    dl->PathStroke(ImGui::GetColorU32(kAccentColour), 0, std::max(1.5f, h * 0.13f));
    ImGui::Dummy({h, h});
}

float button_width(const char* label) {
    return ImGui::CalcTextSize(label, nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2.0f;
}

// On the same line as the last item when `width` more pixels fit there.
void same_line_if_fits(float width) {
    const float right = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width;
    if (right <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x) ImGui::SameLine();
}

bool ctrl_enter_pressed() {
    const ImGuiIO& io = ImGui::GetIO();
    return io.KeyCtrl && (ImGui::IsKeyPressed(io.KeyMap[ImGuiKey_Enter], false) ||
                          ImGui::IsKeyPressed(io.KeyMap[ImGuiKey_KeyPadEnter], false));
}

}  // namespace

bool PuzzleView::results_beside_editor() const {
    const float mono_px = host_.fonts.mono ? host_.fonts.mono->FontSize : ImGui::GetFontSize();
    // DejaVu Sans Mono advances 0.6 em per character.
    return canvas_width_ >= mono_px * 0.6f * 100.0f;
}

void PuzzleView::draw_toolbar() {
    Slot& s = *slot_;
    const bool busy = host_.jobs->busy();
    const bool mine = busy && running_id_ == s.id;
    if (!toolchain_.usable()) {
        // In the Run button's place: the one thing to do about it.
        text_status(Status::Warn, (toolchain_.missing + ". The editor, the statement and the reference solution "
                                                        "still work, and your code is saved as you type.")
                                      .c_str());
    } else {
        const char* run_label = s.showing_reference ? "Run the reference" : "Run  (Ctrl+Enter)";
        ImGui::BeginDisabled(busy);
        if (ImGui::Button(run_label)) start_check(s.showing_reference);
        ImGui::EndDisabled();
        hover_tip("Compiles the kernel (a few seconds at most) and runs it in gpulab's GPU simulator on the example "
                  "and on the hidden cases, each output compared with the reference solution's. Your code runs in a "
                  "separate, confined process, never inside gpulab. R also runs it when the editor does not have "
                  "the keyboard.");
        if (mine) {
            ImGui::SameLine();
            ImGui::BeginDisabled(host_.jobs->cancelling());
            if (ImGui::Button("Cancel")) host_.jobs->cancel();
            ImGui::EndDisabled();
            ImGui::SameLine();
            spinner();
            ImGui::SameLine();
            ImGui::TextColored(kAccentColour, "%s", host_.jobs->stage().c_str());
        } else if (busy) {
            ImGui::SameLine();
            ImGui::TextColored(kMutedColour, "another run is going: wait for it or press Cancel in Controls");
        }
    }
    if (s.showing_reference) {
        same_line_if_fits(button_width("Back to my code") + ImGui::GetFontSize() * 14.0f);
        if (ImGui::Button("Back to my code")) s.showing_reference = false;
        ImGui::SameLine();
        ImGui::TextColored(kWarnColour, "the reference solution (read-only)");
    } else {
        same_line_if_fits(button_width("Reset to skeleton..."));
        if (ImGui::Button("Reset to skeleton...")) confirm_reset_ = true;
        hover_tip("Start again from the skeleton (asks first; a copy of your code is kept).");
        same_line_if_fits(button_width("Show reference solution..."));
        if (ImGui::Button("Show reference solution...")) confirm_reference_ = true;
        hover_tip("One way to solve it, read-only beside your code (asks first: try your own first).");
    }
    if (!s.save_error.empty()) {
        text_status(Status::Warn, s.save_error.c_str());
    } else if (!s.load_note.empty()) {
        text_status(Status::Warn, s.load_note.c_str());
    } else if (!s.showing_reference) {
        // "saved" once a file holds this text; nothing before the first edit (the skeleton needs no file).
        const char* state = s.dirty ? "editing" : s.ever_saved ? "saved" : "";
        same_line_if_fits(ImGui::CalcTextSize(state).x);
        ImGui::TextColored(kMutedColour, "%s", state);
        const std::string where = puzzle_save_path(s.id).string();
        hover_tip(("Your code is saved as you type, to " + where +
                   ", and comes back when you open this puzzle again. Ctrl+Z undoes, Ctrl+Y redoes; Tab indents.")
                      .c_str());
    }
}

void PuzzleView::reset_to_skeleton(Slot& s) {
    // A copy of what is replaced, so a Reset pressed by mistake loses nothing.
    reset_error_ = save_code(s.id + "-before-reset", s.editor.text());
    if (!reset_error_.empty()) return;
    s.editor.set_text(s.puzzle->skeleton);
    note_edit(s);
    save_now(s);
}

void PuzzleView::draw_confirm_popups() {
    Slot& s = *slot_;
    const float fs = ImGui::GetFontSize();
    if (confirm_reset_) {
        ImGui::OpenPopup("Reset to the skeleton?");
        confirm_reset_ = false;
        reset_error_.clear();
    }
    if (confirm_reference_) {
        ImGui::OpenPopup("Show the reference solution?");
        confirm_reference_ = false;
    }
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings;
    if (ImGui::BeginPopupModal("Reset to the skeleton?", nullptr, flags)) {
        ImGui::PushTextWrapPos(fs * 26.0f);
        ImGui::TextWrapped("Your code for this puzzle is replaced by the skeleton it started from. A copy of it is "
                           "kept in %s.",
                           puzzle_save_path(s.id + "-before-reset").string().c_str());
        if (!reset_error_.empty()) text_status(Status::Error, ("Nothing was reset. " + reset_error_).c_str());
        ImGui::PopTextWrapPos();
        if (ImGui::Button("Reset")) {
            reset_to_skeleton(s);
            if (reset_error_.empty()) ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Keep my code")) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
    if (ImGui::BeginPopupModal("Show the reference solution?", nullptr, flags)) {
        ImGui::PushTextWrapPos(fs * 26.0f);
        ImGui::TextWrapped("The reference is one way to solve this puzzle. You learn more from your own attempt and "
                           "its defects; your code stays as it is, and Back to my code returns to it.");
        ImGui::PopTextWrapPos();
        if (ImGui::Button("Show it")) {
            s.showing_reference = true;
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Not yet")) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

void PuzzleView::draw_editor(ImVec2 size) {
    Slot& s = *slot_;
    CodeEditor& editor = s.showing_reference ? s.reference : s.editor;
    ImGui::PushID(s.id.c_str());
    const CodeEditor::Frame f =
        editor.draw(s.showing_reference ? "reference" : "student", size, host_.fonts.mono, s.showing_reference, marks_for(s));
    ImGui::PopID();
    if (f.changed) note_edit(s);
    if (f.run_keys) start_check(s.showing_reference);
}

void PuzzleView::draw_canvas() {
    canvas_width_ = ImGui::GetContentRegionAvail().x;
    if (!slot_ || !slot_->puzzle) {
        const std::string& why = slot_ ? slot_->problem : step_problem_;
        text_status(Status::Error, why.c_str());
        return;
    }
    Slot& s = *slot_;
    // Ctrl+Enter with the keyboard outside any text field (the editor reports its own).
    if (!ImGui::GetIO().WantTextInput && ctrl_enter_pressed() && !host_.jobs->busy()) start_check(s.showing_reference);
    draw_toolbar();
    draw_confirm_popups();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (results_beside_editor()) {
        const float editor_w = std::floor(avail.x * 0.62f);
        draw_editor({editor_w, avail.y});
        ImGui::SameLine();
        ImGui::BeginChild("##results", {0, avail.y}, false, ImGuiWindowFlags_NavFlattened);
        draw_results(ImGui::GetContentRegionAvail().x, host_.fonts);
        ImGui::EndChild();
    } else {
        draw_editor({0, avail.y});
    }
}

// The panel under the editor holds what the kernel did (and, on a narrow canvas, the check too):
// its title says so instead of "Timing", which a puzzle never measures there.
std::string PuzzleView::timing_title() const {
    if (!slot_ || !slot_->puzzle) return "What the kernel did";
    return results_beside_editor() ? what_it_did_heading() : "The check, and what the kernel did";
}

void PuzzleView::draw_timing() {
    if (!slot_ || !slot_->puzzle) {
        ImGui::TextColored(kMutedColour, "What the kernel did shows here once a puzzle is open and checked.");
        return;
    }
    const float fs = ImGui::GetFontSize();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (results_beside_editor()) {
        ImGui::BeginChild("##did", {0, 0}, false, ImGuiWindowFlags_NavFlattened);
        draw_what_it_did(ImGui::GetContentRegionAvail().x, host_.fonts, /*heading=*/false);  // the panel's title
        ImGui::EndChild();
        return;
    }
    // The editor has the canvas to itself: the results come here, beside the picture.
    if (avail.x >= fs * 34.0f) {
        ImGui::BeginChild("##results", {std::floor(avail.x * 0.42f), 0}, false, ImGuiWindowFlags_NavFlattened);
        draw_results(ImGui::GetContentRegionAvail().x, host_.fonts);
        ImGui::EndChild();
        ImGui::SameLine();
        ImGui::BeginChild("##did", {0, 0}, false, ImGuiWindowFlags_NavFlattened);
        draw_what_it_did(ImGui::GetContentRegionAvail().x, host_.fonts);
        ImGui::EndChild();
        return;
    }
    if (ImGui::BeginTabBar("##puzzle_tabs")) {
        if (ImGui::BeginTabItem("Result")) {
            ImGui::BeginChild("##results", {0, 0}, false, ImGuiWindowFlags_NavFlattened);
            draw_results(ImGui::GetContentRegionAvail().x, host_.fonts);
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem("What the kernel did")) {
            ImGui::BeginChild("##did", {0, 0}, false, ImGuiWindowFlags_NavFlattened);
            draw_what_it_did(ImGui::GetContentRegionAvail().x, host_.fonts);
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
}

void PuzzleView::draw_controls() {
    if (!slot_ || !slot_->puzzle) return;
    ImGui::TextColored(kMutedColour, "Kernel puzzle: %s", slot_->id.c_str());
    if (toolchain_.usable()) {
        ImGui::PushTextWrapPos(0.0f);
        const puzzles::SandboxStatus& sb = puzzles::sandbox_status();
        ImGui::TextColored(kMutedColour, "Compiler: %s (%s)", toolchain_.compiler.string().c_str(),
                           sb.confined ? "your kernel is compiled and run in a sandbox, with no network and no files of yours"
                                       : "your kernel runs in a confined process; no sandbox: bubblewrap is missing or cannot run here");
        ImGui::PopTextWrapPos();
    }
}

}  // namespace gpulab::app
