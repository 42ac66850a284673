// The latency lesson's canvas: a tab per panel (sweep, breakdown, one task, analogy), the step
// choosing which is in front. The sweep and breakdown draw with sweep_plot.h; the one-task panel
// puts the two numbers that define the lesson side by side (latency of one tiny job, throughput
// of a huge one) above the GPU fixed-cost tables, each with its reason when it was not measured.
// Checked by eye in the screenshots of each step.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "measure/format.h"
#include "gpu_backends.h"
#include "latency_view.h"
#include "views/timing_plot.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// A number drawn at twice the font size: the two figures the one-task panel is about.
void big_number(const std::string& text, ImU32 colour) {
    const float size = ImGui::GetFontSize() * 2.0f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddText(ImGui::GetFont(), size, p, colour, text.c_str());
    const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(size, 1e9f, 0.0f, text.c_str());
    ImGui::Dummy(ts);
}

void muted_wrapped(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

std::string stats_text(const core::Stats& s) {
    return core::format_duration(s.median_ns) + "  (" + core::format_duration(s.min_ns) + " .. " +
           core::format_duration(s.max_ns) + ")";
}

}  // namespace

void LatencyView::draw_canvas() {
    static constexpr PanelTab<Panel> kTabs[] = {
        {"Analogy", Panel::Analogy, "A few fast mathematicians against many slower students, at the measured speeds."},
        {"Size sweep", Panel::Sweep, "Time per call against size on every backend, both axes logarithmic."},
        {"Breakdown", Panel::Breakdown, "Where one call's time goes at one size: copies, kernel, launch."},
        {"One task, many tasks", Panel::OneTask,
         "The latency of one tiny job, the throughput of a huge one, and the "
         "GPU's fixed costs."},
    };
    draw_panel_tabs("##latency_panels", kTabs, panel_, select_panel_, 0, [this](Panel panel) {
        switch (panel) {
            case Panel::Sweep:
                draw_sweep_panel();
                break;
            case Panel::Breakdown:
                draw_breakdown_panel();
                break;
            case Panel::OneTask:
                draw_one_task_panel();
                break;
            case Panel::Analogy:
                draw_analogy_panel();
                break;
        }
    });
}

// What is on screen and whether it still matches the controls.
void LatencyView::draw_result_note() {
    if (!result_) {
        ImGui::TextColored(kMutedColour, "%s",
                           host_.jobs->busy() || sweep_on_step_ ? "measuring: the plots appear when the sweep ends"
                                              : "nothing measured yet: press Run sweep (R)");
        return;
    }
    const core::SweepResult& r = result_->sweep;
    if (!result_matches_config()) {
        ImGui::TextColored(
            kAccentColour, "Showing the last sweep (%s, %s .. %s); press Run sweep for the new settings.",
            std::string(core::activation_label(r.activation)).c_str(), core::format_pow2(r.plan.sizes.front()).c_str(),
            core::format_pow2(r.plan.sizes.back()).c_str());
    }
}

void LatencyView::draw_sweep_panel() {
    draw_result_note();
    if (!result_) return;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_sweep_time_plot(shown_sweep(), plot_options(), {avail.x, std::max(avail.y, ImGui::GetFontSize() * 10)});
}

void LatencyView::draw_breakdown_panel() {
    draw_result_note();
    const std::optional<std::size_t> i = size_index_near(breakdown_exp_);
    if (!result_ || !i) return;
    const core::SweepResult& r = result_->sweep;
    const int64_t n = r.plan.sizes[*i];
    if (host_.fonts.bold) ImGui::PushFont(host_.fonts.bold);
    ImGui::Text("One call at %s = %s elements (%s in, %s out)", core::format_pow2(n).c_str(),
                core::format_count(n).c_str(), core::format_bytes(static_cast<double>(n) * 4).c_str(),
                core::format_bytes(static_cast<double>(n) * 4).c_str());
    if (host_.fonts.bold) ImGui::PopFont();
    if (std::llround(std::log2(static_cast<double>(n))) != breakdown_exp_)
        ImGui::TextColored(kMutedColour, "(2^%d was not measured; this is the nearest size the sweep reached)",
                           breakdown_exp_);
    ImGui::Spacing();
    draw_phase_breakdown(r, *i, result_->launch, ImGui::GetContentRegionAvail().x);
    ImGui::Spacing();
    muted_wrapped(
        "Each segment is the median of that phase over the timed calls; the number at the end is their "
        "sum, so the segments add up to it exactly. GPU phases are CUDA-event times on one stream; a CPU "
        "backend spends the whole call computing.");
    const std::string missing = gpu_missing_sentence(r);
    if (!missing.empty()) {
        muted_wrapped("No GPU bars: " + missing + ".");
        hover_tip(gpu_missing_reason(r).c_str());  // the driver's own words, on demand
    }
    // Without a GPU the launch probe has nothing to say that the line above did not.
    if (!missing.empty()) return;
    if (!result_->launch.ok)
        muted_wrapped("Launch enqueue not measured: " + result_->launch.error);
    else
        ImGui::TextColored(kMutedColour, "launch enqueue (host clock, from the launch probe): %s per kernel",
                           core::format_duration(result_->launch.enqueue.median_ns).c_str());
}

void LatencyView::draw_one_task_panel() {
    draw_result_note();
    if (!result_) return;
    const core::SweepResult& r = result_->sweep;
    const std::size_t first = 0, last = r.plan.sizes.size() - 1;
    // Fastest CPU backend and first GPU backend at a size, with their medians.
    auto pick = [&](std::size_t i, bool gpu, std::string& name) -> std::optional<int64_t> {
        std::optional<int64_t> best;
        for (std::size_t b = 0; b < r.backends.size(); ++b) {
            const core::SweepCell& c = r.cells[b][i];
            if (!c.ran || (r.kinds[b] == core::BackendKind::Gpu) != gpu) continue;
            if (!best || c.total.median_ns < *best) {
                best = c.total.median_ns;
                name = r.backends[b];
            }
            if (gpu) break;
        }
        return best;
    };
    const std::string missing = gpu_missing_sentence(r);
    auto column = [&](const char* title, std::size_t i, bool rate) {
        const int64_t n = r.plan.sizes[i];
        ImGui::TextColored(kAccentColour, "%s", title);
        ImGui::TextColored(kMutedColour, "%s = %s elements", core::format_pow2(n).c_str(),
                           core::format_count(n).c_str());
        for (bool gpu : {false, true}) {
            std::string name;
            const std::optional<int64_t> t = pick(i, gpu, name);
            ImGui::TextUnformatted(gpu ? "GPU, round trip with copies" : "CPU, fastest backend");
            if (t) {
                const std::string v = rate ? format_rate(static_cast<double>(n) / static_cast<double>(*t) * 1e9)
                                           : core::format_duration(*t);
                big_number(v, backend_color(name));
                ImGui::TextColored(kMutedColour, "%s, median%s", name.c_str(),
                                   rate ? (" of " + core::format_duration(*t) + " per call").c_str() : " per call");
            } else {
                big_number("not measured", IM_COL32(120, 120, 125, 255));
                muted_wrapped(gpu ? missing : "no CPU backend ran");
            }
        }
    };
    if (ImGui::BeginTable("##two_numbers", 2, ImGuiTableFlags_SizingStretchSame)) {
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        column("Latency of one tiny job", first, false);
        ImGui::TableSetColumnIndex(1);
        column("Throughput of a huge job", last, true);
        ImGui::EndTable();
    }

    ImGui::Spacing();
    ImGui::Separator();
    ImGui::TextColored(kAccentColour, "The GPU's fixed costs, measured after the sweep");
    const ImGuiTableFlags tf =
        ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("##fixed", 2, tf)) {
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("median (min .. max)", ImGuiTableColumnFlags_WidthStretch, 1.2f);
        auto row = [](const std::string& what, const std::string& value, bool ok) {
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::TextUnformatted(what.c_str());
            ImGui::TableSetColumnIndex(1);
            if (ok)
                ImGui::TextUnformatted(value.c_str());
            else
                muted_wrapped(value);
        };
        const gpu::LaunchCosts& l = result_->launch;
        if (l.ok) {
            row("launch enqueue (host, no wait)", stats_text(l.enqueue), true);
            row("launch + synchronize (empty kernel)", stats_text(l.launch_and_sync), true);
            row(std::to_string(l.graph_kernels) + " tiny kernels one by one, per kernel",
                stats_text(l.separate_per_kernel), true);
            row("the same in one CUDA Graph, per kernel", stats_text(l.graph_per_kernel), true);
        } else {
            row("kernel launch costs", "not measured: " + l.error, false);
        }
        const gpu::CopyBandwidth& c = result_->copy;
        if (c.ok) {
            const std::string sz = " (" + core::format_bytes(static_cast<double>(c.bytes)) + ")";
            row("host to device, pinned" + sz, core::format_gbps(c.h2d_pinned_gbps), true);
            row("host to device, pageable" + sz, core::format_gbps(c.h2d_pageable_gbps), true);
            row("device to host, pinned" + sz, core::format_gbps(c.d2h_pinned_gbps), true);
            row("device to host, pageable" + sz, core::format_gbps(c.d2h_pageable_gbps), true);
        } else {
            row("copy bandwidth, pinned vs pageable", "not measured: " + c.error, false);
        }
        const gpu::ColdStart& cs = result_->cold;
        row("cold start: the process's first CUDA call",
            cs.ok ? core::format_duration(cs.context_ns) + " once" : "not measured: " + cs.error, cs.ok);
        ImGui::EndTable();
    }
    if (result_->cold.ok && result_->launch.ok && result_->launch.launch_and_sync.median_ns > 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "The cold start alone costs as much as %.0f launch round trips: warm up "
                      "before you time anything.",
                      static_cast<double>(result_->cold.context_ns) /
                          static_cast<double>(result_->launch.launch_and_sync.median_ns));
        muted_wrapped(buf);
    }
}

}  // namespace gpulab::app
