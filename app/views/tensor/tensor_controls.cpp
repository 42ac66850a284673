// The tensor-core lesson's canvas tabs, its controls (lane, input type, the typed number, the
// sweep's largest K and pairs, Run / Cancel) and its Timing window (the step's predict prompt with
// the answer computed from the sweep, then the numbers behind the panel in front: the picked
// lane's elements and the kernel check, the formats' ranges, or the errors at the prompt's K).
// Every control has a tooltip. Checked in the GUI screenshots of each step.
#include <algorithm>
#include <cmath>
#include <string>

#include "measure/format.h"
#include "tensor_view.h"
#include "views/run_row.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void TensorView::draw_canvas() {
    static constexpr PanelTab<Panel> kTabs[] = {
        {"One instruction", Panel::Fragments,
         "mma.sync.m16n8k16: the warp's 32 lanes each hold a piece of A, B and C in their registers, and one "
         "instruction multiplies the whole 16 x 16 by 16 x 8 tile. Which lane holds what is read from the simulated "
         "kernel."},
        {"Number formats", Panel::Formats,
         "FP32, TF32, BF16 and FP16: the same number in each, bit by bit, with the range and the step size each "
         "format has."},
        {"Dot product error", Panel::Dot,
         "Long sums of products in each format: the error against FP64 as the sum grows, with the sum kept in FP32 "
         "or in the narrow format."},
        {"Gradients in FP16", Panel::Gradients,
         "One real batch's gradients of the training lesson's CNN, by size: which ones FP16 keeps, thins or loses, "
         "and what a loss scale changes."},
        {"Master weights", Panel::Master,
         "A weight nudged by the same small step thousands of times, kept in FP32, TF32, BF16 or FP16."},
        {"Training in BF16", Panel::Training,
         "The training lesson's CNN trained three times from the same weights on the same batches: in FP32, with BF16 "
         "products and FP32 master weights, and with BF16 weights. Loss curves on one plot; updates lost counted."},
        {"Speed", Panel::Speed,
         "The same matrix product in FP32 and in BF16 on this CPU, through gpulab's kernels and oneDNN, with the "
         "instruction that ran."},
        {"FP32 ladder", Panel::Ladder,
         "gpulab's FP32 matrix product built up one idea at a time (loop order, blocking, packing, the micro-kernel, "
         "threads), each against this CPU's measured FMA peak."},
    };
    draw_panel_tabs("##tensor_panels", kTabs, panel_, select_panel_, 0, [this](Panel panel) {
        switch (panel) {
            case Panel::Fragments: draw_fragments_panel(); break;
            case Panel::Formats: draw_formats_panel(); break;
            case Panel::Dot: draw_dot_panel(); break;
            case Panel::Gradients: draw_gradients_panel(); break;
            case Panel::Master: draw_master_panel(); break;
            case Panel::Training: draw_training_panel(); break;
            case Panel::Speed: draw_speed_panel(); break;
            case Panel::Ladder: draw_ladder_panel(); break;
        }
    });
}

void TensorView::draw_result_note() {
    ImGui::TextColored(kMutedColour, "%s",
                       host_.jobs->busy() || run_on_step_ || race_on_step_ || ladder_on_step_ ? "computing: the pictures appear when the run ends"
                                                          : "nothing computed yet: press Run (R)");
}

void TensorView::draw_controls() {
    const float label_w = ImGui::GetFontSize() * 7.0f;
    ImGui::PushItemWidth(-label_w);
    ImGui::SliderInt("lane", &lane_, 0, 31, "%d", ImGuiSliderFlags_AlwaysClamp);
    hover_tip("The lane whose elements the instruction's picture lights up (also: click an element).");
    int in = input_ == kern::MmaInput::Fp16 ? 0 : 1;
    if (ImGui::Combo("input type", &in, "FP16\0BF16\0")) input_ = in == 0 ? kern::MmaInput::Fp16 : kern::MmaInput::Bf16;
    hover_tip("The instruction's inputs: FP16 or BF16, both with FP32 accumulation (the two variants the kernel is "
              "built for).");
    if (ImGui::SliderInt("largest K", &max_k_exp_, 8, 20, "2^%d", ImGuiSliderFlags_AlwaysClamp)) run_on_step_ = false;
    hover_tip("The longest dot product of the sweep (K = 16 up to this). Longer sums show more of an FP16 or BF16 "
              "sum stalling; 2^20 takes a second or two. Press Run after changing it.");
    ImGui::SliderInt("vector pairs", &trials_, 1, 64, "%d", ImGuiSliderFlags_AlwaysClamp);
    hover_tip("How many random vector pairs each error is averaged over. Press Run after changing it.");
    ImGui::SliderInt("loss scale", &loss_scale_exp_, 0, 24, "2^%d", ImGuiSliderFlags_AlwaysClamp);
    hover_tip("Gradients in FP16: the loss (and so every gradient) is multiplied by this before the gradients are "
              "stored in FP16, and divided again before the update. Too small and small gradients are lost; too "
              "large and the largest overflow.");
    float log_step = static_cast<float>(std::log10(weight_step_));
    if (ImGui::SliderFloat("weight step", &log_step, -6.0f, -2.0f, "")) weight_step_ = std::pow(10.0, log_step);
    ImGui::SameLine(ImGui::GetItemRectMin().x - ImGui::GetWindowPos().x + ImGui::GetStyle().FramePadding.x);
    ImGui::Text("%.0e", weight_step_);
    hover_tip("Master weights: what each of the 10,000 updates subtracts from a weight of 1.");
    int batches = static_cast<int>(train_batches_);
    if (ImGui::SliderInt("training batches", &batches, 10, 600, "%d", ImGuiSliderFlags_AlwaysClamp))
        train_batches_ = batches;
    hover_tip("Training in BF16: how many batches of 64 pictures each of the three precisions trains on. Press Run "
              "on that tab after changing it.");
    ImGui::PopItemWidth();
    ImGui::Spacing();
    ImGui::Separator();
    if (draw_run_row(*host_.jobs, "Run (R)",
                     panel_ == Panel::Training
                         ? "Trains the training lesson's CNN three times on cpu-parallel: FP32, BF16 mixed precision "
                           "and BF16 weights, the same batches for each."
                         : "Reads the lanes of the simulated mma.sync kernel, runs the whole kernel on cuda-sim against "
                           "cpu-scalar, and sums dot products in four formats for every K.",
                     "Stop at the next checkpoint; the previous result stays on screen.",
                     (panel_ == Panel::Training ? race_ != nullptr : result_ != nullptr)
                         ? "idle: the panels show the last run"
                         : "idle"))
        request_run();
}

void TensorView::draw_predict() {
    if (!predict_) return;
    const core::PredictPrompt& p = *predict_;
    const bool ready = (updates_prompt() ? race_ != nullptr : result_ != nullptr) && !host_.jobs->busy();
    if (!draw_predict_choices(p, pick_, reveal_now_, ready)) {
        ImGui::TextColored(kMutedColour, "%s",
                           ready ? "Pick one; the run on screen answers it." : "Pick one while the run computes.");
        return;
    }
    if (!ready) {
        ImGui::TextColored(kMutedColour, "Your pick is in. The answer appears when the run ends.");
        return;
    }
    // Either prompt's answer, from the numbers on screen: {ok, sentence, the right choice, where to look}.
    struct Answer {
        bool ok;
        std::string text;
        int best_choice;
        const char* look;
    };
    Answer a;
    if (updates_prompt()) {
        const train::PrecisionAnswer u = train::answer_updates_lost_prompt(p.choices, *race_);
        a = {u.ok, u.text, u.best_choice, "Look at the table: updates lost of those made."};
    } else if (p.reveal.rfind("gradients-thinned:", 0) == 0) {
        const train::GradientAnswer& g = gradient_answer();
        a = {g.ok, g.text, g.best_choice, "Look at the bars left of the 'kept' band."};
    } else {
        const core::MostErrorAnswer m = core::answer_most_error(p.reveal, p.choices, result_->sweep);
        a = {m.ok, m.text, m.best_choice, "Look at the plot: where does each line go as K grows?"};
    }
    if (!a.ok) {
        text_status(Status::Error, a.text.c_str());
        return;
    }
    ImGui::TextWrapped("%s", a.text.c_str());
    if (pick_ < 0) return;
    if (pick_ == a.best_choice)
        text_status(Status::Ok, "Your prediction matches the computed numbers.");
    else
        text_status(Status::Error, ("Not quite: it is '" +
                                    (a.best_choice >= 0 ? p.choices[static_cast<std::size_t>(a.best_choice)]
                                                        : std::string("none of the choices")) +
                                    "'. " + a.look)
                                       .c_str());
}

void TensorView::draw_timing() {
    draw_predict();
    if (predict_) ImGui::Separator();
    if (panel_ == Panel::Training) {
        draw_training_timing();
        return;
    }
    if (panel_ == Panel::Ladder) {
        draw_ladder_timing();
        return;
    }
    if (!result_) {
        draw_result_note();
        return;
    }
    const TensorMeasurement& m = *result_;
    switch (panel_) {
        case Panel::Fragments: {
            const sim::MmaLaneData& d = m.lanes_for(input_);
            if (d.ok) ImGui::TextWrapped("%s", lane_holdings(d, lane_).c_str());
            draw_kernel_check(m.check_for(input_));
            ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
            ImGui::TextWrapped("%s", kModelNote);
            ImGui::PopStyleColor();
            break;
        }
        case Panel::Formats: draw_format_neighbours(value_); break;
        case Panel::Dot: {
            const auto [hide_narrow, hide_fp32] = hidden_lines();
            draw_dot_table(m.sweep, prompt_k() > 0 ? prompt_k() : m.sweep.config.max_k, hide_narrow, hide_fp32);
            ImGui::TextColored(kMutedColour, "Relative to the exact sum, mean of %d vector pairs; computed in %s on this CPU.",
                               m.sweep.config.trials, core::format_duration(m.sweep.wall_ns).c_str());
            break;
        }
        case Panel::Gradients:
            // The counts are the prompt's answer: they wait for a pick, as the dot plot's lines do.
            if (predict_ && predict_->reveal.rfind("gradients-thinned:", 0) == 0 && pick_ < 0 && !reveal_now_)
            {
                ImGui::TextColored(kMutedColour, "The counts appear when you answer.");
                draw_gradient_source(m.gradients);
            }
            else
                draw_gradient_table(m.gradients, gradient_counts());
            break;
        case Panel::Master: draw_weight_walk_table(weight_walk()); break;
        case Panel::Training:
        case Panel::Ladder: break;  // drawn above, from their own runs
        case Panel::Speed: {
            // The ratios the lesson is about, from the rows above (0: a row did not run).
            const core::GemmSpeedRun& s = m.speed;
            const auto ratio = [](double r) { return r > 0 ? core::format_ratio(r) : std::string("-"); };
            ImGui::Text("BF16 against FP32, oneDNN: %s   gpulab's own kernels: %s   gpulab's BF16 against oneDNN's: %s",
                        ratio(s.onednn_bf16_over_fp32()).c_str(), ratio(s.ours_bf16_over_fp32()).c_str(),
                        ratio(s.ours_over_onednn_bf16()).c_str());
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextColored(kMutedColour, "Each row checked at 64 outputs against the exact sum of its rounded "
                                             "inputs. Times from this CPU now: another program running makes them "
                                             "slower, not the formats.");
            ImGui::PopTextWrapPos();
            break;
        }
    }
}

}  // namespace gpulab::app
