// File > "Compare with another machine...": a modal with a path field for another machine's
// export of the open lesson (its CSV: -summary.csv, -sweep.csv, -simd.csv or -conv.csv). Load hands
// it to the current lesson's view (LessonView::load_comparison); a bad file keeps the popup open
// with the reason in red and leaves any comparison already shown in place.
// Shell::load_comparison is also what --compare calls. Checked by the compare.* tests (headless) and by eye in the GUI.
#include <cstring>

#include "shell.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

bool Shell::load_comparison(const std::string& path, std::string& error) {
    if (!view_) {
        error = "no lesson open to compare in";
        return false;
    }
    return view_->load_comparison(path, error);
}

void Shell::draw_compare_popup() {
    const char* kTitle = "Compare with another machine";
    // Opened here, outside the menu, so the popup's id is the same one BeginPopupModal looks up.
    if (compare_popup_requested_) {
        compare_popup_requested_ = false;
        compare_error_.clear();
        ImGui::OpenPopup(kTitle);
    }
    if (!ImGui::BeginPopupModal(kTitle, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) return;
    ImGui::TextUnformatted(
        "Path of another machine's copy of this lesson's exported CSV (from Export or gpulab export):");
    if (view_ && lesson())
        ImGui::TextColored(kMutedColour, "for this lesson: %s%s (or a -step-NN.csv of export --all-steps)",
                           lesson()->id.c_str(), view_->comparison_file_suffix().c_str());
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 36.0f);
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    const bool enter = ImGui::InputText("##compare_path", compare_path_buf_, sizeof compare_path_buf_,
                                        ImGuiInputTextFlags_EnterReturnsTrue);
    if (!compare_error_.empty()) ImGui::TextColored(kErrorColour, "%s", compare_error_.c_str());
    if (ImGui::Button("Load") || enter) {
        std::string error;
        if (load_comparison(compare_path_buf_, error)) {
            compare_error_.clear();
            ImGui::CloseCurrentPopup();
        } else {
            compare_error_ = error;
        }
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
}

}  // namespace gpulab::app
