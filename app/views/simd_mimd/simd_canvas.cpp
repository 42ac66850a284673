// The SIMD-vs-MIMD canvas: a tab per panel (Flynn's grid, the CPU measurements, the GPU warp view),
// the step choosing which is in front. The CPU tab stacks the scalar-vs-vector bars over the MIMD
// timeline; the warp tab replays a warp's steps for the chosen pattern, several warps side by
// side, labelled "emulated" with the reason whenever the kernel did not run. Checked by eye in
// the screenshots (/tmp/simd_cpu.png, /tmp/simd_warp.png).
#include <algorithm>
#include <cmath>

#include "measure/format.h"
#include "simd_mimd_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

void heading(const Fonts& fonts, const char* text, bool focus) {
    if (fonts.bold) ImGui::PushFont(fonts.bold);
    ImGui::TextColored(focus ? kAccentColour : ImVec4(0.88f, 0.88f, 0.90f, 1.0f), "%s", text);
    if (fonts.bold) ImGui::PopFont();
}

}  // namespace

void SimdMimdView::draw_canvas() {
    static constexpr PanelTab<Panel> kTabs[] = {
        {"Flynn's taxonomy", Panel::Flynn,
         "SISD, SIMD, MISD, MIMD: one or many instruction streams, on one or many data. Each cell is driven by "
         "what this machine measured."},
        {"CPU, measured", Panel::Cpu,
         "SIMD on one core (the same loop scalar and vectorised) and MIMD across cores (different tasks at "
         "once, with real timestamps)."},
        {"GPU warp", Panel::Warp,
         "32 threads issued as one: when lanes of one warp take different branches, each instruction serves "
         "only one path's lanes, the others masked off (since Volta the paths may interleave; the cost is "
         "about their sum)."},
    };
    draw_panel_tabs("##simd_panels", kTabs, panel_, select_panel_, 0, [this](Panel panel) {
        switch (panel) {
            case Panel::Flynn:
                draw_flynn_panel();
                break;
            case Panel::Cpu:
                draw_cpu_panel();
                break;
            case Panel::Warp:
                draw_warp_panel();
                break;
        }
    });
}

void SimdMimdView::draw_result_note() {
    if (!result_) {
        ImGui::TextColored(kMutedColour, "%s",
                           host_.jobs->busy() || run_on_step_ ? "measuring: the pictures appear when the run ends"
                                              : "nothing measured yet: press Run (R)");
        return;
    }
    if (!result_matches_config())
        ImGui::TextColored(kAccentColour, "Showing the last run (%s over %s floats); press Run for the new settings.",
                           std::string(core::activation_label(result_->activation)).c_str(),
                           core::format_count(result_->elements).c_str());
}

// [SECTION] CPU

void SimdMimdView::draw_cpu_panel() {
    draw_result_note();
    if (!result_) return;
    const float w = ImGui::GetContentRegionAvail().x;
    const SimdMimdMeasurement& m = *result_;
    heading(host_.fonts,
            ("SIMD on one core: " + std::string(core::activation_label(m.activation)) + " over " +
             core::format_count(m.elements) + " floats, one thread")
                .c_str(),
            !focus_mimd_);
    if (m.simd.ok)
        draw_simd_bars(m.simd, w);
    else
        ImGui::TextColored(kErrorColour, "not measured: %s", m.simd.error.c_str());
    ImGui::Spacing();
    heading(host_.fonts,
            ("MIMD: " + std::to_string(m.mimd.threads) + " threads at once, each its own task and instruction stream")
                .c_str(),
            focus_mimd_);
    if (!m.mimd.ok) {
        ImGui::TextColored(kErrorColour, "not measured: %s", m.mimd.error.c_str());
        return;
    }
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const float h = std::max(ImGui::GetContentRegionAvail().y - lh * 1.2f, lh * 5);
    const float period = 5.0f;
    const float playhead = std::fmod(anim_time_, period + 1.0f) / period;
    draw_mimd_timeline(m.mimd, {w, h}, std::min(playhead, 1.0f));
}

// [SECTION] warp

void SimdMimdView::draw_pattern_combo(float width) {
    ImGui::SetNextItemWidth(width);
    const std::string current(core::pattern_label(pattern_));
    if (ImGui::BeginCombo("##pattern", current.c_str())) {
        for (simt::Pattern p : core::kAllPatterns) {
            const std::string label(core::pattern_label(p));
            if (ImGui::Selectable(label.c_str(), p == pattern_)) {
                pattern_ = p;
                anim_time_ = 0.0f;
            }
        }
        ImGui::EndCombo();
    }
    hover_tip(
        "Which branch each thread takes. The kernel reads a key per element from memory, so the compiler cannot "
        "know the path in advance; lanes of one warp with different keys are serialised.");
}

void SimdMimdView::draw_warp_panel() {
    const float lh = ImGui::GetTextLineHeight();
    const float w = ImGui::GetContentRegionAvail().x;
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted("Branch pattern");
    ImGui::SameLine();
    draw_pattern_combo(std::min(w * 0.42f, lh * 20.0f));
    const bool recorded = result_ && result_->gpu_ran;
    if (recorded) {
        ImGui::TextColored(kOkColour, "recorded on the GPU: __activemask() and clock64() per path");
    } else {
        const std::string why = result_ ? result_->gpu_reason : std::string("no GPU measurement yet");
        ImGui::PushStyleColor(ImGuiCol_Text, static_cast<ImVec4>(kWarnColour));
        ImGui::TextWrapped("emulated: %s", why.c_str());
        ImGui::PopStyleColor();
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            ImGui::PushTextWrapPos(lh * 28.0f);
            ImGui::TextUnformatted(
                "Without a GPU the warp is stepped by a CPU emulator that runs the kernel's own branch logic "
                "(core/ops/simt.h) with an active mask, as the hardware does. The masks are the same; the timings "
                "are missing.");
            if (result_ && !result_->gpu_error.empty() && result_->gpu_error != result_->gpu_reason)
                ImGui::TextUnformatted(result_->gpu_error.c_str());
            if (result_ && !result_->sim_refusal.empty()) ImGui::TextUnformatted(result_->sim_refusal.c_str());
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
        }
    }

    const int margin_lanes = 8;
    const int n = std::clamp(static_cast<int>(w / (lh * 0.42f * (simt::kWarpSize + margin_lanes))), 2, 4);
    const std::vector<WarpReplay> warps = warp_replays(result_.get(), pattern_, n);
    int max_steps = 1;
    for (const auto& r : warps) max_steps = std::max(max_steps, static_cast<int>(r.steps.size()));
    const int lanes0 = warps.empty() || warps[0].steps.empty() ? 32 : [&] {
        int c = 0;
        for (uint32_t v = warps[0].steps[0].active; v; v &= v - 1) ++c;
        return c;
    }();
    const PatternCost* cost = result_ ? &result_->costs[static_cast<std::size_t>(pattern_)] : nullptr;
    const bool hide = hidden_pattern() == pattern_;
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    if (hide)
        ImGui::TextWrapped(
            "Each lane is coloured by the branch it takes. The warp has one instruction stream: how long will it "
            "take? Answer in the Timing window, then the replay shows what the warp does.");
    else if (pattern_ == simt::Pattern::PerWarp)
        ImGui::TextWrapped(
            "Every warp takes a different path, but all lanes of a warp agree: each warp still runs ONE step. "
            "Divergence between warps is free.");
    else if (max_steps == 1)
        ImGui::TextWrapped(
            "All 32 lanes take the same path: one step per warp, every lane busy. This is the baseline.");
    else
        ImGui::TextWrapped(
            "The lanes of one warp disagree, so each instruction serves one path's lanes, the others masked off: "
            "%d paths cost about %d times one, %d of 32 lanes busy in the first. Drawn one path per step; since "
            "Volta a GPU may interleave the paths.",
            max_steps, max_steps, lanes0);
    ImGui::PopStyleColor();

    const float step_seconds = std::clamp(4.0f / static_cast<float>(max_steps), 0.15f, 0.8f);
    const float cycle = static_cast<float>(max_steps + 2) * step_seconds;
    const float shown = std::fmod(anim_time_, cycle) / step_seconds;
    const float footer = ImGui::GetTextLineHeightWithSpacing() * 1.3f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_warp_grid(warps, shown, {avail.x, std::max(avail.y - footer, lh * 6)}, hide);
    if (!warps.empty() && !warps.front().start_clock.empty())
        hover_tip("Recorded on the GPU. Rows are in the order the paths started; the white line under each row is "
                  "that path's clock window on the warp's time axis. Windows that overlap ran interleaved (Volta and "
                  "later); the order is what happened in this run, not a rule.");

    if (!cost || hide) return;
    if (cost->measured)
        ImGui::Text("Measured: %s per kernel, %s the uniform time (theory: %s).",
                    core::format_duration(cost->kernel_ns).c_str(), core::format_ratio(cost->measured_factor).c_str(),
                    core::format_ratio(cost->theoretical).c_str());
    else
        ImGui::TextColored(kMutedColour,
                           "Theory: %s the uniform time (paths per warp, on average: %.2g). Measured: not on this "
                           "machine, no GPU ran the kernel.",
                           core::format_ratio(cost->theoretical).c_str(), cost->theoretical);
}

}  // namespace gpulab::app
