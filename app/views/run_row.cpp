// See run_row.h. Verified through every lesson's GUI smoke test and the presenter tests.
#include "run_row.h"

#include <imgui.h>

#include <string>

#include "widgets/ui_helpers.h"

namespace gpulab::app {

bool draw_run_row(JobRunner& jobs, const char* run_label, const char* tip, const char* cancel_tip,
                  const char* idle_text) {
    // BeginDisabled(flag) always pairs with EndDisabled(): the click below can change busy().
    ImGui::BeginDisabled(jobs.busy());
    const bool run = ImGui::Button(run_label);
    ImGui::EndDisabled();
    hover_tip(tip);
    if (jobs.busy()) {
        ImGui::SameLine();
        ImGui::BeginDisabled(jobs.cancelling());
        if (ImGui::Button("Cancel")) jobs.cancel();
        ImGui::EndDisabled();
        hover_tip(cancel_tip);
        const std::string stage = jobs.label() + ": " + jobs.stage();
        ImGui::ProgressBar(jobs.progress(), {-1, 0}, stage.c_str());
    } else {
        ImGui::SameLine();
        ImGui::PushTextWrapPos(0.0f);  // a long button label leaves little room on a narrow column
        ImGui::TextColored(kMutedColour, "%s", idle_text);
        ImGui::PopTextWrapPos();
        draw_busy_machine_warning(jobs);
    }
    return run;
}

void draw_busy_machine_warning(const JobRunner& /*jobs: the quality of the last run is core's now*/) {
    // The last run shared the machine with other programs: say so once, here, beside Run.
    const core::RunQuality q = core::last_run_quality();
    if (!q.busy()) return;
    text_status(Status::Warn, q.warning().c_str());
    hover_tip(q.summary().c_str());
}

bool draw_predict_choices(const core::PredictPrompt& p, int& pick, bool& reveal_now, bool ready) {
    ImGui::TextColored(kAccentColour, "Predict first:");
    ImGui::SameLine();
    ImGui::TextWrapped("%s", p.question.c_str());
    const bool answered = pick >= 0 || reveal_now;
    for (std::size_t k = 0; k < p.choices.size(); ++k) {
        if (k > 0) ImGui::SameLine();
        const bool chosen = pick == static_cast<int>(k);
        if (chosen) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        ImGui::BeginDisabled(answered && !chosen);
        if (ImGui::Button(p.choices[k].c_str()) && !answered) pick = static_cast<int>(k);
        ImGui::EndDisabled();
        if (chosen) ImGui::PopStyleColor();
    }
    if (!answered) {
        ImGui::SameLine();
        ImGui::BeginDisabled(!ready);
        if (ImGui::SmallButton("just show me")) reveal_now = true;
        ImGui::EndDisabled();
    }
    return answered;
}

bool draw_activation_combo(core::Activation& activation, const char* tip) {
    bool changed = false;
    const std::string current(core::activation_label(activation));
    if (ImGui::BeginCombo("activation", current.c_str())) {
        for (core::Activation a : core::kAllActivations) {
            const std::string label(core::activation_label(a));
            if (ImGui::Selectable(label.c_str(), a == activation) && a != activation) {
                activation = a;
                changed = true;
            }
        }
        ImGui::EndCombo();
    }
    hover_tip(tip);
    return changed;
}

bool answer_first_action(const std::optional<core::PredictPrompt>& prompt, int& pick, const std::string& name,
                         std::string& said, bool& ok) {
    if (name != "answer-first") return false;
    ok = prompt && !prompt->choices.empty();
    if (!ok) {
        said = "this step has no predict prompt";
        return true;
    }
    pick = 0;
    said = "answered '" + prompt->choices[0] + "'";
    return true;
}

}  // namespace gpulab::app
