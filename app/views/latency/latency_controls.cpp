// The latency lesson's controls (op, sweep range in powers of two, the transfers toggle, the
// breakdown size, Run sweep / Cancel with progress and stage) and its Timing window (the step's
// predict prompt with its live answer, what the sweep measured, and throughput against size).
// Every control has a tooltip. Checked in the GUI screenshots of each step.
#include <algorithm>
#include <string>

#include "measure/format.h"
#include "latency_view.h"
#include "views/run_row.h"
#include "views/timing_plot.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void LatencyView::draw_controls() {
    const float label_w = ImGui::GetFontSize() * 7.0f;
    ImGui::PushItemWidth(-label_w);
    draw_activation_combo(activation_,
                          "The op swept over sizes. ReLU is nearly free per element, so fixed costs dominate longer.");
    // AlwaysClamp: a value typed with Ctrl+click stays in range too (it becomes a shift count).
    if (ImGui::SliderInt("smallest", &min_exp_, 0, 20, "2^%d elements", ImGuiSliderFlags_AlwaysClamp))
        max_exp_ = std::max(max_exp_, min_exp_);
    hover_tip("First size of the sweep. Tiny sizes show the fixed costs: copies and kernel launch.");
    if (ImGui::SliderInt("largest", &max_exp_, 4, 28, "2^%d elements", ImGuiSliderFlags_AlwaysClamp))
        min_exp_ = std::min(min_exp_, max_exp_);
    hover_tip(
        "Last size of the sweep, memory permitting (input, reference and one output stay alive: 12 bytes per "
        "element). Large sizes show bandwidth; each step up doubles the time.");
    ImGui::TextColored(kMutedColour, "%d sizes, up to %s per array", max_exp_ - min_exp_ + 1,
                       core::format_bytes(static_cast<double>(int64_t{1} << max_exp_) * 4).c_str());
    ImGui::SliderInt("breakdown", &breakdown_exp_, min_exp_, max_exp_, "at 2^%d", ImGuiSliderFlags_AlwaysClamp);
    hover_tip(
        "The size whose phases the Breakdown panel splits, and the pile in the Analogy panel. Uses the "
        "sweep on screen; no new measurement.");
    ImGui::PopItemWidth();
    ImGui::Checkbox("count copies (transfers)", &transfers_);
    hover_tip(
        "On: the GPU's bold line includes the host-device copies, as for data that starts on the CPU. Off: "
        "the data already lives on the GPU (between layers of a network), so only the kernel counts, and the "
        "crossover moves to smaller sizes.");

    ImGui::Spacing();
    ImGui::Separator();
    if (draw_run_row(
            *host_.jobs, "Run sweep (R)",
            "Every backend at every size: warm-up, then at least 10 timed calls per point (3 above 2^20), median "
            "and p25..p75; then the GPU's launch, copy and cold-start costs.",
            "Stop at the next checkpoint; the previous sweep stays on screen.",
            result_ ? "idle: the plots show the last sweep" : "idle"))
        request_run();
}

// [SECTION] timing window

void LatencyView::draw_predict() {
    if (!predict_) return;
    const core::PredictPrompt& p = *predict_;
    const bool ready = result_ && result_matches_config() && !host_.jobs->busy();
    if (!draw_predict_choices(p, pick_, reveal_now_, ready)) {
        ImGui::TextColored(kMutedColour, "%s",
                           ready ? "Pick one; the sweep on screen answers it."
                                 : "Pick one while the sweep runs; its result answers it.");
        return;
    }
    if (!ready) {
        ImGui::TextColored(kMutedColour, "Your pick is in. The answer appears when the sweep ends.");
        return;
    }
    const PredictAnswer a = answer_prompt(p.reveal, result_->sweep, comparison());
    if (!a.ok) {
        text_status(Status::Error, a.text.c_str());
        return;
    }
    ImGui::TextWrapped("%s", a.text.c_str());
    if (pick_ < 0) return;
    const int kind = classify_choice(p.choices[static_cast<std::size_t>(pick_)]);
    if (!a.gpu_measured && a.gpu_from.empty())
        ImGui::TextColored(kMutedColour, "Your pick cannot be checked here: the GPU side was not measured.");
    else if (!a.gpu_measured)
        text_status(kind == a.winner ? Status::Ok : Status::Error,
                    (std::string(kind == a.winner ? "Your prediction was right" : "Not this time") +
                     ", judged by the " + a.gpu_from + " for the GPU side, not a measurement here.")
                        .c_str());
    else if (kind == a.winner)
        text_status(Status::Ok, "Your prediction was right.");
    else
        text_status(Status::Error, "Not this time: look at the sweep to see why.");
}

void LatencyView::draw_timing() {
    draw_predict();
    if (predict_) ImGui::Separator();
    if (!result_) {
        ImGui::TextColored(kMutedColour, "%s",
                           host_.jobs->busy() || sweep_on_step_ ? "measuring: throughput appears when the sweep ends"
                                              : "nothing measured yet: press Run sweep (R)");
        return;
    }
    const core::SweepResult& r = shown_sweep();
    const std::string with = crossover_text(r, true), without = crossover_text(r, false);
    if (gpu_hidden()) {
        ImGui::TextColored(kMutedColour, "The crossover appears when you answer: it is the prompt's answer.");
    } else if (!with.empty()) {
        ImGui::TextColored(transfers_ ? ImVec4(1.0f, 0.88f, 0.35f, 1.0f) : kMutedColour, "%s", with.c_str());
        ImGui::TextColored(!transfers_ ? ImVec4(1.0f, 0.88f, 0.35f, 1.0f) : kMutedColour, "%s", without.c_str());
    } else if (const std::string recorded = recorded_crossover_text(); !recorded.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(ImVec4(1.0f, 0.88f, 0.35f, 1.0f), "%s", recorded.c_str());
        ImGui::PopTextWrapPos();
    } else if (const std::string missing = gpu_missing_sentence(r); !missing.empty()) {
        ImGui::TextColored(kMutedColour, "No crossover to mark: %s.", missing.c_str());
    }
    if (comparison() && !gpu_hidden()) draw_comparison_legend(ImGui::GetContentRegionAvail().x);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_sweep_throughput_plot(r, plot_options(), {avail.x, std::max(avail.y, ImGui::GetFontSize() * 8)});
}

bool LatencyView::script_action(const std::string& name, std::string& said) {
    if (bool ok = false; answer_first_action(predict_, pick_, name, said, ok)) return ok;
    said = "unknown action '" + name + "' (answer-first)";
    return false;
}

}  // namespace gpulab::app
