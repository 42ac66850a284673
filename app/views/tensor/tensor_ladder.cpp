// The tensor-core lesson's "FP32 ladder" panel (issue 45, item 2): the FP32 matrix product built up
// rung by rung on this CPU (core/workloads/gemm_ladder.h: naive loops, loop order, cache blocking,
// packing with a register-blocked micro-kernel, threads), each with its median GFLOP/s and its
// share of the FMA peak measured on the same cores in the same run. It is the fair FP32 base the
// speed panel's BF16 and GPU rows are compared with: the last rung is cpu-parallel's product.
// Its own run and cache, like the training panel's race: the lesson's main measurement does not
// need it, and it takes a second or two. Checked by eye in the ladder step's screenshots.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string>

#include "measure/format.h"
#include "tensor_view.h"
#include "views/timing_plot.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

std::string percent_text(double fraction) {
    char buf[16];
    std::snprintf(buf, sizeof buf, fraction < 0.095 ? "%.1f %%" : "%.0f %%", 100.0 * fraction);
    return buf;
}

// One rung's colour: one hue, darker for the early rungs, so the eye reads the ladder climbing.
ImU32 rung_colour(std::size_t index, std::size_t count) {
    const float t = count > 1 ? static_cast<float>(index) / static_cast<float>(count - 1) : 1.0f;
    const ImU32 full = backend_color("cpu-parallel");
    const auto channel = [&](int shift) {
        const float c = static_cast<float>((full >> shift) & 0xFF);
        return static_cast<ImU32>(std::lround(c * (0.35f + 0.65f * t)));
    };
    return IM_COL32(channel(IM_COL32_R_SHIFT), channel(IM_COL32_G_SHIFT), channel(IM_COL32_B_SHIFT), 255);
}

}  // namespace

std::size_t gemm_ladder_bytes(const core::GemmLadder& l) {
    return sizeof(core::GemmLadder) + l.rows.size() * (sizeof(core::GemmRungRow) + 256);
}

std::string TensorView::ladder_key(int64_t size) { return "fp32-ladder " + std::to_string(size); }

int64_t TensorView::ladder_size(bool quick) { return quick ? 128 : kSpeedSide; }

std::shared_ptr<const core::GemmLadder> TensorView::measure_ladder(int64_t size) {
    // The naive rung takes a good part of a second at 512^3: few samples, a time budget per rung.
    core::MeasureConfig config;
    config.warmup = 1;
    config.min_samples = 3;
    config.max_samples = 20;
    config.time_budget_ns = 300'000'000;
    auto l = std::make_shared<core::GemmLadder>(core::measure_gemm_ladder(size, config));
    if (core::cancel_requested()) return nullptr;
    return l;
}

bool TensorView::start_ladder() {
    const int64_t size = ladder_size(false);
    return host_.submit("the FP32 ladder", [this, size](const core::ProgressFn& progress) {
        if (progress) progress(0.0f, "the FP32 matrix product rung by rung, and this CPU's FMA peak");
        auto l = measure_ladder(size);
        return std::function<void()>([this, l] {
            if (!l)
                host_.info = ladder_ ? "run cancelled; the panel shows the previous result" : "run cancelled";
            else
                finish_ladder(l);
        });
    });
}

void TensorView::finish_ladder(std::shared_ptr<const core::GemmLadder> l) {
    // A rung that failed to run says why; one that ran but missed the exact sum says that.
    host_.error.clear();
    for (const core::GemmRungRow& r : l->rows) {
        const std::string rung = cpu::gemm_rung_name(r.rung);
        if (!r.speed.error.empty()) host_.error = "the FP32 ladder's rung '" + rung + "' did not run: " + r.speed.error;
        else if (r.speed.ran && !r.speed.check_pass)
            host_.error = "the FP32 ladder's rung '" + rung + "' did not match the exact sum";
    }
    host_.info.clear();  // measured now: an earlier step's line about a stored result would be wrong
    ladder_ = std::move(l);
    ladder_cache_.put(ladder_key(ladder_->size), ladder_, gemm_ladder_bytes(*ladder_), std::time(nullptr));
}

bool TensorView::ladder_shown() {
    if (ladder_ && !ladder_->rows.empty()) return true;
    draw_result_note();
    return false;
}

// The canvas: one bar per rung, as long as its median GFLOP/s, on one scale that ends at the
// all-cores FMA peak, with the one-core peak marked, so the last rungs' closeness to the hardware
// shows as plainly as the first rungs' distance from it.
void TensorView::draw_ladder_panel() {
    if (!ladder_shown()) return;
    const core::GemmLadder& l = *ladder_;
    const float fs = ImGui::GetFontSize();
    const float width = ImGui::GetContentRegionAvail().x;
    ImGui::TextWrapped("One %s x %s x %s FP32 product on this CPU (%s), built up one idea at a time.",
                       core::format_count(l.size).c_str(), core::format_count(l.size).c_str(),
                       core::format_count(l.size).c_str(), l.isa.c_str());
    ImGui::Spacing();
    double top = std::max({1.0, l.peak.all_cores_gflops, l.peak.one_core_gflops});
    for (const core::GemmRungRow& r : l.rows) top = std::max(top, r.speed.gflops_max);
    const float value_w = ImGui::CalcTextSize("888 GFLOP/s, 88 % of 2 cores").x + fs;
    const float bar_x0 = fs * 0.5f, bar_max = std::max(width - value_w - bar_x0, fs * 6.0f);
    // The rows share the panel's height: tall bars on a big canvas, never less than two lines each.
    const float rows_h = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() * 3.5f;
    const float row_h = std::clamp(rows_h / static_cast<float>(l.rows.size()), fs * 3.2f, fs * 6.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const auto x_of = [&](double g) { return origin.x + bar_x0 + static_cast<float>(g / top) * bar_max; };
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), muted = ImGui::GetColorU32(kMutedColour);
    for (std::size_t i = 0; i < l.rows.size(); ++i) {
        const core::GemmRungRow& r = l.rows[i];
        const core::GemmSpeedRow& s = r.speed;
        const float y = origin.y + static_cast<float>(i) * row_h;
        char title[160];
        std::snprintf(title, sizeof title, "%zu. %s", i + 1, cpu::gemm_rung_name(r.rung));
        dl->AddText({origin.x + bar_x0, y}, text, title);
        const float bar_top = y + fs * 1.25f, bar_bottom = y + row_h - fs * 0.6f;
        if (!s.ran) {
            dl->AddText({origin.x + bar_x0, bar_top}, muted, ("not run: " + s.error).c_str());
            continue;
        }
        dl->AddRectFilled({x_of(0.0), bar_top}, {std::max(x_of(s.gflops), x_of(0.0) + 2.0f), bar_bottom},
                          rung_colour(i, l.rows.size()));
        const float mid = (bar_top + bar_bottom) * 0.5f;
        dl->AddLine({x_of(s.gflops_min), mid}, {x_of(s.gflops_max), mid}, text, 1.5f);
        const std::string value = gflops_text(s.gflops) + ", " + percent_text(r.fraction_of_peak) + " of " +
                                  (r.threads > 1 ? std::to_string(r.threads) + " cores" : std::string("1 core"));
        dl->AddText({std::max(x_of(s.gflops), x_of(s.gflops_max)) + fs * 0.4f, mid - fs * 0.5f}, text, value.c_str());
    }
    // The peaks, over the whole ladder: dashed for one core, dotted for all of them, named once below
    // (two labels at lines a few pixels apart would print over each other).
    const float bottom = origin.y + static_cast<float>(l.rows.size()) * row_h;
    const auto dashes = [&](double g, float on, float gap) {
        if (g <= 0.0) return;
        for (float y = origin.y + fs * 1.2f; y < bottom; y += on + gap)
            dl->AddLine({x_of(g), y}, {x_of(g), std::min(y + on, bottom)}, muted, 1.5f);
    };
    dashes(l.peak.one_core_gflops, fs * 0.5f, fs * 0.3f);
    dashes(l.peak.all_cores_gflops, fs * 0.12f, fs * 0.2f);
    const std::string peaks = "FMA peak measured now: dashed " + gflops_text(l.peak.one_core_gflops) + " on 1 core, dotted " +
                              gflops_text(l.peak.all_cores_gflops) + " on " + std::to_string(l.peak.threads);
    dl->AddText({origin.x + bar_x0, bottom}, muted, peaks.c_str());
    // A product cannot beat the peak; a share above 100 % means the burst itself ran slowed by other
    // programs (a busy machine lowers the peak as much as any rung), and the screen says so.
    ImGui::Dummy({width, bottom - origin.y + ImGui::GetTextLineHeightWithSpacing()});
    const bool above = std::any_of(l.rows.begin(), l.rows.end(),
                                   [](const core::GemmRungRow& r) { return r.fraction_of_peak > 1.0; });
    if (above) {
        ImGui::PushStyleColor(ImGuiCol_Text, kWarnColour);
        ImGui::TextWrapped("Above 100 %%: the peak burst ran while other programs had the cores, so it came out low. "
                           "Run again (R) when the machine is idle.");
        ImGui::PopStyleColor();
    }
}

// The Timing panel: the numbers for the record, a line per rung (the step text says what each rung
// changes; the rung's name keeps it in a tooltip), so the table never scrolls beside the bars.
void TensorView::draw_ladder_timing() {
    if (!ladder_shown()) return;
    const core::GemmLadder& l = *ladder_;
    if (ImGui::BeginTable("##ladder", 6, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        ImGui::TableSetupColumn("rung");
        ImGui::TableSetupColumn("cores");
        ImGui::TableSetupColumn("median");
        ImGui::TableSetupColumn("GFLOP/s (min..max)");
        ImGui::TableSetupColumn("of the peak");
        // text_status wraps at its column's edge: the column is given the width of its longest word.
        ImGui::TableSetupColumn("check", ImGuiTableColumnFlags_WidthFixed,
                                ImGui::CalcTextSize("WRONG").x + ImGui::GetFontSize() * 1.4f);
        ImGui::TableHeadersRow();
        for (std::size_t i = 0; i < l.rows.size(); ++i) {
            const core::GemmRungRow& r = l.rows[i];
            const core::GemmSpeedRow& s = r.speed;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::Text("%zu. %s", i + 1, cpu::gemm_rung_name(r.rung));
            hover_tip(cpu::gemm_rung_idea(r.rung));
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.threads);
            ImGui::TableNextColumn();
            if (!s.ran) {
                ImGui::TextColored(kMutedColour, "not run: %s", s.error.c_str());
                continue;
            }
            ImGui::TextUnformatted(core::format_duration(s.time.median_ns).c_str());
            ImGui::TableNextColumn();
            ImGui::Text(s.gflops >= 100 ? "%.0f (%.0f..%.0f)" : "%.1f (%.1f..%.1f)", s.gflops, s.gflops_min, s.gflops_max);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(percent_text(r.fraction_of_peak).c_str());
            ImGui::TableNextColumn();
            text_status(s.check_pass ? Status::Ok : Status::Error, s.check_pass ? "match" : "WRONG");
        }
        ImGui::EndTable();
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kMutedColour, "Medians of this CPU now; each product checked at 64 outputs against the exact sum.");
    ImGui::PopTextWrapPos();
}

std::string gemm_ladder_csv(const core::GemmLadder& l) {
    std::ostringstream o;
    o << "kind,rung,size,threads,ran,median_ns,gflops,gflops_min,gflops_max,fraction_of_peak,matches_reference\n";
    for (const core::GemmRungRow& r : l.rows) {
        const core::GemmSpeedRow& s = r.speed;
        o << "fp32_rung," << cpu::gemm_rung_id(r.rung) << "," << l.size << "," << r.threads << ","
          << (s.ran ? "yes" : "no") << "," << s.time.median_ns << "," << s.gflops << "," << s.gflops_min << ","
          << s.gflops_max << "," << r.fraction_of_peak << "," << (s.check_pass ? "yes" : "no") << "\n";
    }
    o << "fma_peak,one_core," << l.size << ",1,yes,," << l.peak.one_core_gflops << ",,,,\n";
    o << "fma_peak,all_cores," << l.size << "," << l.peak.threads << ",yes,," << l.peak.all_cores_gflops << ",,,,\n";
    return o.str();
}

}  // namespace gpulab::app
