// The "peaks and roofline" tab: the sanity check a GPU engineer does before believing a speed-up.
// Top: each machine's FP32 peak and memory bandwidth, the article's two from their published parts
// (the arithmetic written out) and this one measured. Then the roofline of the lesson's model: a
// log-log plot of each machine's roof with the model's layers on it, and per layer the FLOPs and
// bytes of one picture, its arithmetic intensity and its time on each machine (an estimate), at a
// batch and a GPU precision the student picks. Last, the estimate's ratio beside the article's
// quoted one, and what the difference says. The arithmetic is core/train/roofline.h; the
// measurement core/train/machine_peak.h; this file only draws.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "measure/format.h"
#include "train/article_figures.h"
#include "train_draw.h"
#include "views/xy_plot.h"
#include "train_view.h"
#include "widgets/cell_text.h"
#include "widgets/paged_text.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

const ImU32 kCpuColour = IM_COL32(240, 150, 70, 255);    // the article's CPU
const ImU32 kGpuColour = IM_COL32(118, 185, 0, 255);     // the article's GPU
const ImU32 kHereColour = IM_COL32(120, 170, 255, 255);  // this machine

std::string per_picture(double seconds) {
    return core::format_duration(static_cast<std::int64_t>(std::llround(seconds * 1e9)));
}

// "0.10", "4.6", "104": two or three figures.
std::string intensity_text(double v) { return core::format_fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : 2); }

// The roof of one machine as a curve from 0.05 to 500 FLOP per byte, in GFLOP/s.
PlotSeries roof(const train::Machine& m, ImU32 colour) {
    PlotSeries s{m.name, colour, {}, false, 2.2f};
    for (double ai = 0.05; ai <= 500.0; ai *= 1.25)
        s.points.push_back({static_cast<float>(ai), static_cast<float>(train::attainable_flops(m, ai) / 1e9)});
    // The ridge itself, so the bend is sharp.
    s.points.push_back({static_cast<float>(m.ridge()), static_cast<float>(m.flops / 1e9)});
    std::sort(s.points.begin(), s.points.end(), [](const ImVec2& a, const ImVec2& b) { return a.x < b.x; });
    return s;
}

void peak_row(const train::Machine& m, ImU32 colour, const char* source) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colour), "%s", m.name.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%s", train::format_flop_rate(m.flops).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%s", core::format_gbps(m.bytes_per_s / 1e9).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%s FLOP/B", intensity_text(m.ridge()).c_str());
    ImGui::TableNextColumn();
    ImGui::TextColored(kMutedColour, "%s", source);
}

}  // namespace

void TrainView::draw_roofline_panel(float width) {
    const train::GpuSpec gpu_spec;
    const train::CpuSpec cpu_spec;
    const train::Machine cpu = train::machine_of(cpu_spec);
    const train::Machine gpu32 = train::machine_of(gpu_spec);
    const train::Machine gpu = train::machine_of(gpu_spec, roofline_precision_);
    const bool have_here = peaks_ && peaks_->ok;
    const train::Machine here = have_here ? train::machine_of(*peaks_) : train::Machine{};
    const std::string cpu_how = cpu.flops_how + " = " + train::format_flop_rate(cpu.flops) +
                                " (an upper estimate: " + core::format_fixed(cpu_spec.max_ghz, 1) +
                                " GHz is its top boost; on all cores it runs lower); " + cpu.bytes_how + " = " +
                                core::format_gbps(cpu.bytes_per_s / 1e9);
    const std::string gpu_how = gpu32.flops_how + " = " + train::format_flop_rate(gpu32.flops) + "; " +
                                gpu32.bytes_how + " = " + core::format_gbps(gpu32.bytes_per_s / 1e9);

    // Three parts, shown a page at a time where the canvas is short (1366 x 768: the peaks and the
    // estimate, then the plot and the table, then the arithmetic), never a scroll box (issue 41).
    auto part = [&](int i) {
        switch (i) {
            case 0: {
                ImGui::PushTextWrapPos(0.0f);
                ImGui::Text("Is \"the GPU is %s faster\" a fact about hardware? First: what each machine can do at most.",
                            train::article_speedup_text().c_str());
                ImGui::PopTextWrapPos();

                // [SECTION] peaks (hover a row for its arithmetic; it is also written out at the end)
                if (ImGui::BeginTable("##peaks", 5, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
                    ImGui::TableSetupColumn("machine");
                    ImGui::TableSetupColumn("FP32 peak");
                    ImGui::TableSetupColumn("memory bandwidth");
                    ImGui::TableSetupColumn("ridge");
                    ImGui::TableSetupColumn("source");
                    ImGui::TableHeadersRow();
                    peak_row(cpu, kCpuColour, "published spec, arithmetic");
                    hover_tip(cpu_how.c_str());
                    peak_row(gpu32, kGpuColour, "published spec, arithmetic");
                    hover_tip(gpu_how.c_str());
                    if (have_here) {
                        peak_row(here, kHereColour, "measured on this machine");
                        hover_tip((here.flops_how + "; " + here.bytes_how + ". Other programs running make both lower.").c_str());
                    } else {
                        ImGui::TableNextRow();
                        ImGui::TableNextColumn();
                        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kHereColour), "this machine");
                        ImGui::TableNextColumn();
                        ImGui::TextColored(peaks_ ? kErrorColour : kMutedColour, "%s",
                                           measuring_peaks_ ? "measuring..."
                                           : peaks_         ? peaks_->error.c_str()
                                                            : "not measured yet");
                    }
                    ImGui::EndTable();
                }
                const double peak_ratio = gpu32.flops / cpu.flops, bandwidth_ratio = gpu32.bytes_per_s / cpu.bytes_per_s;
                ImGui::PushTextWrapPos(0.0f);
                ImGui::Text("The RTX 3070 has %s the arithmetic of the Ryzen 5 5600X and %s its memory bandwidth (arithmetic).",
                            core::format_ratio(peak_ratio).c_str(), core::format_ratio(bandwidth_ratio).c_str());
                ImGui::PopTextWrapPos();

                // [SECTION] the estimate, its knobs, and the article's ratio beside it
                int batch = static_cast<int>(roofline_batch_);
                ImGui::SetNextItemWidth(std::min(width * 0.22f, ImGui::GetFontSize() * 12));
                if (ImGui::SliderInt("batch##roofline", &batch, 1, 1024, "%d",
                                     ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_Logarithmic))
                    roofline_batch_ = batch;
                hover_tip(
                    "Pictures per training step in this estimate. The weights are read and their gradients written once "
                    "per batch, so a bigger batch moves fewer bytes per picture. The article used 150.");
                ImGui::SameLine(0, ImGui::GetFontSize() * 1.5f);
                ImGui::SetNextItemWidth(std::min(width * 0.32f, ImGui::GetFontSize() * 19));
                if (ImGui::BeginCombo("GPU precision", std::string(train::precision_name(roofline_precision_)).c_str())) {
                    for (train::Precision p : {train::Precision::Fp32, train::Precision::Tf32Tensor, train::Precision::Fp16Tensor})
                        if (ImGui::Selectable(std::string(train::precision_name(p)).c_str(), p == roofline_precision_))
                            roofline_precision_ = p;
                    ImGui::EndCombo();
                }
                hover_tip(
                    "What the RTX 3070 computes the layers in (the CPU stays FP32). Arithmetic on the published spec, "
                    "dense: TF32 on this GeForce card's tensor cores peaks at 20.3 TFLOP/s, no more than FP32 on its CUDA "
                    "cores; FP16 with FP32 accumulation at 40.6, and it halves the bytes. NVIDIA's 'with sparsity' figures "
                    "are twice these and need pruned weights.");
                const double estimate = train::roofline_speedup(model_, roofline_batch_, cpu, gpu);
                ImGui::PushTextWrapPos(0.0f);
                ImGui::Text("Estimate (roofline) for this model: the GPU is %s faster at batch %lld, %s.",
                            core::format_ratio(estimate).c_str(), static_cast<long long>(roofline_batch_),
                            std::string(train::precision_name(roofline_precision_)).c_str());
                ImGui::Text("At batch 1: %s; at batch 1024: %s.",
                            core::format_ratio(train::roofline_speedup(model_, 1, cpu, gpu)).c_str(),
                            core::format_ratio(train::roofline_speedup(model_, 1024, cpu, gpu)).c_str());
                ImGui::Text(
                    "The article's ratio: %s (it says %dx), measured by the article on another, larger model; not "
                    "measured here.",
                    train::article_speedup_text().c_str(), train::ArticleFigures::kQuotedSpeedup);
                if (train::ArticleFigures::speedup() > peak_ratio)
                    ImGui::TextColored(
                        kAccentColour,
                        "%s is more than the %s ratio of the FP32 peaks, the most any layer gains when both machines "
                        "run at their roofs: the article's CPU run used less of its peak than its GPU run did (a CPU framework "
                        "rarely nears the FMA peak, "
                        "and the 5600X runs below %s GHz on all cores). Where layers only move data (ReLU, "
                        "pooling), the GPU is only %s ahead.",
                        train::article_speedup_text().c_str(), core::format_ratio(peak_ratio).c_str(),
                        core::format_fixed(cpu_spec.max_ghz, 1).c_str(), core::format_ratio(bandwidth_ratio).c_str());
                ImGui::PopTextWrapPos();
                ImGui::Separator();

                break;
            }
            case 1: {
                // [SECTION] the roofline, per layer
                const std::vector<train::LayerWork> cpu_rows = train::layer_work(model_, roofline_batch_, cpu.value_bytes);
                const std::vector<train::LayerWork> gpu_rows = train::layer_work(model_, roofline_batch_, gpu.value_bytes);
                const float lh = ImGui::GetTextLineHeight();
                const float plot_w = std::min(width * 0.36f, lh * 26);
                XYPlot plot{"roofline", "FLOP per byte", "(GFLOP/s, log scales; dots: layers)"};
                plot.log_x = plot.log_y = true;
                plot.legend_bottom = true;
                plot.series.push_back(roof(cpu, kCpuColour));
                plot.series.push_back(roof(gpu, kGpuColour));
                if (have_here) plot.series.push_back(roof(here, kHereColour));
                // Each layer sits where its intensity meets each article machine's roof.
                for (std::size_t i = 0; i < cpu_rows.size(); ++i) {
                    const train::LayerWork& c = cpu_rows[i];
                    const train::LayerWork& g = gpu_rows[i];
                    const ImU32 colour = c.is_update ? ImGui::GetColorU32(kMutedColour) : layer_colour(c.kind);
                    plot.series.push_back({"",
                                           colour,
                                           {{static_cast<float>(c.intensity()),
                                             static_cast<float>(train::attainable_flops(cpu, c.intensity()) / 1e9)}},
                                           true});
                    plot.series.push_back({"",
                                           colour,
                                           {{static_cast<float>(g.intensity()),
                                             static_cast<float>(train::attainable_flops(gpu, g.intensity()) / 1e9)}},
                                           true});
                }
                // The table needs about 30 lines' width (37 with this machine's column, whose times carry a unit:
                // at 33 the presenter layout at 2x cut that column's header and times, export --check-layout):
                // beside the plot where it fits, under it otherwise.
                const bool side_by_side = width - plot_w - lh >= lh * (have_here ? 37.0f : 28.0f);
                if (side_by_side) {
                    draw_xy_plot(plot, {plot_w, lh * 17});
                    ImGui::SameLine(0, lh);
                }
                ImGui::BeginGroup();
                ImGui::Text("Per picture (%s):", std::string(train::source_label(train::Source::Estimate)).c_str());
                const int cols = have_here ? 8 : 7;
                if (ImGui::BeginTable("##roofline", cols, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) {
                    ImGui::TableSetupColumn("layer");
                    ImGui::TableSetupColumn("kFLOP");
                    ImGui::TableSetupColumn("KB");
                    ImGui::TableSetupColumn("FLOP/B");
                    ImGui::TableSetupColumn(cpu.name.c_str());
                    ImGui::TableSetupColumn(gpu.name.c_str());
                    ImGui::TableSetupColumn("ratio");
                    if (have_here) ImGui::TableSetupColumn("this machine");
                    ImGui::TableHeadersRow();
                    auto time_cell = [&](const train::Machine& m, const train::LayerWork& w) {
                        ImGui::TableNextColumn();
                        const bool mem = train::memory_bound(m, w);
                        cell_textf(mem ? kAccentColour : ImGui::GetStyle().Colors[ImGuiCol_Text], "%s %s",
                                           per_picture(train::roofline_seconds(m, w)).c_str(), mem ? "M" : "C");
                    };
                    for (std::size_t i = 0; i < cpu_rows.size(); ++i) {
                        const train::LayerWork& c = cpu_rows[i];
                        const train::LayerWork& g = gpu_rows[i];
                        ImGui::TableNextRow();
                        ImGui::TableNextColumn();
                        cell_textf(
                            ImGui::ColorConvertU32ToFloat4(c.is_update ? ImGui::GetColorU32(kMutedColour) : layer_colour(c.kind)),
                            "%s", c.name.c_str());
                        ImGui::TableNextColumn();
                        cell_textf("%s", core::format_fixed(c.flops / 1e3, c.flops >= 1e5 ? 0 : 1).c_str());
                        ImGui::TableNextColumn();
                        cell_textf("%s", core::format_fixed(g.bytes / 1e3, 1).c_str());
                        ImGui::TableNextColumn();
                        cell_textf("%s", intensity_text(g.intensity()).c_str());
                        time_cell(cpu, c);
                        time_cell(gpu, g);
                        ImGui::TableNextColumn();
                        const double tg = train::roofline_seconds(gpu, g);
                        cell_textf("%s", tg > 0 ? core::format_ratio(train::roofline_seconds(cpu, c) / tg).c_str() : "-");
                        if (have_here) time_cell(here, c);
                    }
                    const double t_cpu = train::roofline_seconds(cpu, cpu_rows), t_gpu = train::roofline_seconds(gpu, gpu_rows);
                    double flops = 0.0, bytes = 0.0;
                    for (const auto& w : gpu_rows) flops += w.flops, bytes += w.bytes;
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    cell_textf("whole step");
                    ImGui::TableNextColumn();
                    cell_textf("%s", core::format_fixed(flops / 1e3, 0).c_str());
                    ImGui::TableNextColumn();
                    cell_textf("%s", core::format_fixed(bytes / 1e3, 0).c_str());
                    ImGui::TableNextColumn();
                    cell_textf("%s", intensity_text(flops / bytes).c_str());
                    ImGui::TableNextColumn();
                    cell_textf("%s", per_picture(t_cpu).c_str());
                    ImGui::TableNextColumn();
                    cell_textf("%s", per_picture(t_gpu).c_str());
                    ImGui::TableNextColumn();
                    cell_textf("%s", core::format_ratio(t_cpu / t_gpu).c_str());
                    if (have_here) {
                        ImGui::TableNextColumn();
                        cell_textf("%s", per_picture(train::roofline_seconds(here, cpu_rows)).c_str());
                    }
                    ImGui::EndTable();
                }
                ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + (side_by_side ? width - plot_w - lh * 2 : width));
                ImGui::TextColored(kMutedColour,
                                   "C: compute-bound (right of the ridge), M: memory-bound. kFLOP, KB, FLOP/B: "
                                   "forward + backward of one picture, the weights' bytes shared by the batch, in "
                                   "the GPU's precision.");
                ImGui::PopTextWrapPos();
                ImGui::EndGroup();
                if (!side_by_side) draw_xy_plot(plot, {std::min(width, lh * 34), lh * 17});

                break;
            }
            default: {
                // [SECTION] the arithmetic written out, and what the estimate leaves out
                ImGui::PushTextWrapPos(0.0f);
                note_line_top();
                ImGui::TextColored(kMutedColour, "%s: %s.", cpu.name.c_str(), cpu_how.c_str());
                note_line_top();
                ImGui::TextColored(kMutedColour, "%s: %s.", gpu32.name.c_str(), gpu_how.c_str());
                note_line_top();
                if (have_here)
                    ImGui::TextColored(kMutedColour, "This machine: %s; %s (%s in all).", here.flops_how.c_str(),
                                       here.bytes_how.c_str(), core::format_duration(peaks_->took_ns).c_str());
                note_line_top();
                ImGui::TextColored(kMutedColour,
                                   "Left out on purpose: caches (a batch's activations can stay in cache, beating "
                                   "the memory roof), fused layers (a ReLU inside the convolution moves no bytes of "
                                   "its own), launch and framework overheads. A floor on the time, not a forecast.");
                ImGui::PopTextWrapPos();
            }
        }
    };
    draw_paged_parts(3, part, roofline_part_, /*arrow_keys=*/false);
}

}  // namespace gpulab::app
