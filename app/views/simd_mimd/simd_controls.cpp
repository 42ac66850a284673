// The SIMD-vs-MIMD lesson's controls (activation and size of the SIMD comparison, the warp
// pattern, the replay speed, Run / Cancel with progress and stage) and its Timing window (the
// step's predict prompt with its answer, then every number the run produced: SIMD medians, the
// MIMD wall vs sequential time, and the divergence cost per pattern, measured or theoretical).
// Every control has a tooltip. Checked in the GUI screenshots of each step.
#include <algorithm>
#include <cmath>
#include <string>

#include "measure/format.h"
#include "views/run_row.h"
#include "simd_mimd_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void SimdMimdView::draw_controls() {
    const float label_w = ImGui::GetFontSize() * 7.0f;
    ImGui::PushItemWidth(-label_w);
    draw_activation_combo(activation_,
                          "The loop timed scalar and vectorised on one core. Sigmoid and GELU do real arithmetic per "
                          "element, so the vector unit pays off most; ReLU is so cheap that memory sets the pace.");
    int exp = static_cast<int>(std::lround(std::log2(static_cast<double>(std::max<int64_t>(elements_, 1)))));
    if (ImGui::SliderInt("elements", &exp, 10, 26, "2^%d floats", ImGuiSliderFlags_AlwaysClamp))
        elements_ = int64_t{1} << exp;
    hover_tip(
        "Size of the SIMD comparison. Up to about 2^18 floats (1 MiB) the data stays in the caches and the "
        "vector unit shows its full width; beyond, memory bandwidth caps the vector loop (and ReLU's loops). The "
        "plain sigmoid loop stays compute-bound at every size: its exp costs more time than its bytes.");
    ImGui::TextColored(kMutedColour, "%s floats, %s in and out", core::format_count(elements_).c_str(),
                       core::format_bytes(static_cast<double>(elements_) * 4).c_str());
    ImGui::TextUnformatted("warp pattern");
    draw_pattern_combo(-1.0f);
    ImGui::SliderFloat("replay speed", &replay_speed_, 0.25f, 3.0f, "%.2fx", ImGuiSliderFlags_AlwaysClamp);
    hover_tip("How fast the animations step. The warp replay shows one path per tick whatever the speed.");
    ImGui::PopItemWidth();

    ImGui::Spacing();
    ImGui::Separator();
    if (draw_run_row(
            *host_.jobs, "Run (R)",
            "Times the loop scalar and vectorised on one thread (interleaved, warm-up first), runs the MIMD tasks "
            "on every hardware thread and then one after another, and, where a GPU exists, times the divergence "
            "kernel for every pattern.",
            "Stop at the next checkpoint; the previous result stays on screen.",
            result_ ? "idle: the panels show the last run" : "idle"))
        request_run();
}

// [SECTION] timing window

void SimdMimdView::draw_predict() {
    if (!predict_) return;
    const core::PredictPrompt& p = *predict_;
    const bool ready = result_ && !host_.jobs->busy();
    if (!draw_predict_choices(p, pick_, reveal_now_, ready)) {
        ImGui::TextColored(kMutedColour, "%s",
                           ready ? "Pick one; the run on screen answers it." : "Pick one while the run measures.");
        return;
    }
    if (!ready) {
        ImGui::TextColored(kMutedColour, "Your pick is in. The answer appears when the run ends.");
        return;
    }
    const DivergenceAnswer a = answer_divergence(p.reveal, p.choices, *result_, comparison());
    if (!a.ok) {
        text_status(Status::Error, a.text.c_str());
        return;
    }
    ImGui::TextWrapped("%s", a.text.c_str());
    if (pick_ < 0) return;
    const std::string nearest =
        a.best_choice >= 0 ? p.choices[static_cast<std::size_t>(a.best_choice)] : std::string("none of them");
    const bool recorded = !a.recorded_source.empty();
    if (pick_ == a.best_choice)
        text_status(Status::Ok, a.measured ? "Your prediction matches the measurement."
                                : recorded ? "Your prediction matches the recorded GPU run (not measured here)."
                                           : "Your prediction matches the theory (not measured here).");
    else
        text_status(Status::Error, ("Not quite: the " +
                                    std::string(a.measured ? "measured" : recorded ? "recorded GPU run's" : "theoretical") +
                                    " answer is nearest to '" + nearest + "'. Watch the warp replay to see why.")
                                       .c_str());
}

void SimdMimdView::draw_timing() {
    draw_predict();
    if (predict_) ImGui::Separator();
    if (!result_) {
        ImGui::TextColored(kMutedColour, "%s",
                           host_.jobs->busy() || run_on_step_ ? "measuring: the numbers appear when the run ends"
                                              : "nothing measured yet: press Run (R)");
        return;
    }
    const SimdMimdMeasurement& m = *result_;
    if (m.simd.ok) {
        ImGui::Text("SIMD, one core: scalar %s, %s %s: %s faster",
                    core::format_duration(m.simd.scalar.median_ns).c_str(), m.simd.isa.c_str(),
                    core::format_duration(m.simd.simd.median_ns).c_str(), core::format_ratio(m.simd.speedup).c_str());
        ImGui::SameLine();
        ImGui::TextColored(kMutedColour, "(%d floats per instruction, %s floats)", m.simd.lanes,
                           core::format_count(m.simd.elements).c_str());
    } else {
        ImGui::TextColored(kErrorColour, "SIMD not measured: %s", m.simd.error.c_str());
    }
    if (m.mimd.ok) {
        const double r = m.mimd.wall_ns > 0 ? static_cast<double>(m.mimd.sequential_ns) / m.mimd.wall_ns : 0.0;
        ImGui::Text("MIMD, %d threads: %s together, %s one after another (%s)", m.mimd.threads,
                    core::format_duration(m.mimd.wall_ns).c_str(), core::format_duration(m.mimd.sequential_ns).c_str(),
                    core::format_ratio(r).c_str());
    } else {
        ImGui::TextColored(kErrorColour, "MIMD not measured: %s", m.mimd.error.c_str());
    }
    ImGui::Spacing();
    ImGui::TextColored(kAccentColour, "What divergence costs a warp");
    // Without GPU timings the heading says so on its own line's end (a laptop's panel has few lines).
    if (!m.gpu_ran) {
        ImGui::SameLine();
        ImGui::TextColored(kMutedColour, "%s", no_gpu_timings_line().c_str());
        hover_tip(no_gpu_timings_detail(m).c_str());
    }
    // The table would give the prompt's answer away (and its neighbours hint at it): it waits.
    if (hidden_pattern())
        ImGui::TextColored(kMutedColour, "The cost of every pattern appears here once you have answered the prompt.");
    else
        draw_cost_table(m, pattern_, std::nullopt, /*note_below=*/false);
    if (comparison()) {
        ImGui::Spacing();
        draw_comparison(ImGui::GetContentRegionAvail().x, hidden_pattern().has_value());
    }
}

bool SimdMimdView::script_action(const std::string& name, std::string& said) {
    if (bool ok = false; answer_first_action(predict_, pick_, name, said, ok)) return ok;
    said = "unknown action '" + name + "' (answer-first)";
    return false;
}

}  // namespace gpulab::app
