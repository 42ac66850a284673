// The "dot product error" panel: the sweep's mean relative error against K on log-log axes, one
// line per input format (its colour and marker), solid where the sum is kept in FP32 and dashed
// where it is kept in the input's own format; the K a predict prompt asks about is marked, and the
// lines it asks about wait until it is answered. The table under it gives the same numbers at
// that K. Every number comes from core::run_dot_sweep on the step's settings. Checked by eye in
// the screenshots and by tests/tensor_gui_tests.cmake.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "measure/format.h"
#include "tensor_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// Marker shapes per format, so lines that lie on top of each other (TF32 and FP16: the same ten
// mantissa bits) still show both.
Marker format_marker(core::FpFormat f) {
    switch (f) {
        case core::FpFormat::Fp32: return Marker::Circle;
        case core::FpFormat::Tf32: return Marker::Square;
        case core::FpFormat::Bf16: return Marker::Diamond;
        case core::FpFormat::Fp16: return Marker::TriangleUp;
    }
    return Marker::Circle;
}

bool shown(const core::DotSweepLine& l, bool hide_narrow, bool hide_fp32) {
    const bool narrow = l.accumulate != core::FpFormat::Fp32;
    return narrow ? !hide_narrow : !hide_fp32;
}

void dashed_line(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour, float thickness, float dash) {
    const float len = std::hypot(b.x - a.x, b.y - a.y);
    if (len <= 0) return;
    const ImVec2 d{(b.x - a.x) / len, (b.y - a.y) / len};
    for (float t = 0; t < len; t += 2 * dash) {
        const float e = std::min(len, t + dash);
        dl->AddLine({a.x + d.x * t, a.y + d.y * t}, {a.x + d.x * e, a.y + d.y * e}, colour, thickness);
    }
}

}  // namespace

ImU32 format_colour(core::FpFormat f, float alpha) { return to_u32(kColourBlindFormats[static_cast<int>(f)], alpha); }

void draw_dot_plot(const core::DotSweep& s, ImVec2 size, int64_t mark_k, bool hide_narrow, bool hide_fp32) {
    if (!s.ok || s.ks.size() < 2) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::Dummy(size);
    const float lh = ImGui::GetTextLineHeight();
    // The legend: one entry per input format (colour and marker) and two for the line styles (the
    // sum's format). Right of the plot when the plot keeps most of the width and the entries fit
    // its height, else under it in rows (presenter mode's large type, narrow windows).
    // (A hidden style's entry is greyed: its lines come once the prompt is answered.)
    const char* dashed_label = "sum in its own format";
    const char* solid_label = "sum in FP32";
    const float entry_w = ImGui::CalcTextSize(dashed_label).x + lh * 2.6f;
    constexpr int kEntries = 6;
    const float left = ImGui::CalcTextSize("1e-10").x + lh * 0.8f, top = lh * 1.3f;
    const bool legend_right = size.x - entry_w > lh * 24.0f && size.y - top - lh * 2.6f >= kEntries * lh * 1.25f;
    // Under the plot the entries flow in rows, each as wide as it needs.
    std::vector<ImVec2> slots(kEntries);
    float legend_h = 0.0f;
    if (!legend_right) {
        float x = 0.0f, y = 0.0f;
        const char* names[kEntries] = {"FP32 inputs", "TF32 inputs", "BF16 inputs", "FP16 inputs", solid_label, dashed_label};
        for (int i = 0; i < kEntries; ++i) {
            const float w = ImGui::CalcTextSize(names[i]).x + lh * 3.0f;
            if (x > 0.0f && x + w > size.x - left) {
                x = 0.0f;
                y += lh * 1.25f;
            }
            slots[static_cast<std::size_t>(i)] = {x, y};
            x += w;
        }
        legend_h = y + lh * 1.25f;
    }
    const float bottom = lh * 2.5f + legend_h;
    const float legend_w = legend_right ? entry_w + lh * 0.6f : 0.0f;
    const ImVec2 a{p0.x + left, p0.y + top}, b{p0.x + size.x - legend_w, p0.y + size.y - bottom};
    if (b.x - a.x < lh * 4 || b.y - a.y < lh * 2) return;
    const auto legend_at = [&](int i) {
        if (legend_right) return ImVec2{b.x + lh * 0.6f, a.y + static_cast<float>(i) * lh * 1.25f};
        const ImVec2 slot = slots[static_cast<std::size_t>(i)];
        return ImVec2{a.x + slot.x, b.y + lh * 2.5f + slot.y};
    };
    const ImU32 grid = IM_COL32(90, 90, 96, 120), axis = ImGui::GetColorU32(ImGuiCol_Text),
                muted = ImGui::GetColorU32(kMutedColour);

    // y: decades around the errors shown (zero errors sit on the floor).
    double lo = 1.0, hi = 1e-12;
    for (const core::DotSweepLine& l : s.lines) {
        if (!shown(l, hide_narrow, hide_fp32)) continue;
        for (double e : l.error)
            if (e > 0) {
                lo = std::min(lo, e);
                hi = std::max(hi, e);
            }
    }
    const double y_lo = std::pow(10.0, std::floor(std::log10(std::max(lo, 1e-12))));
    const double y_hi = std::max(y_lo * 10, std::pow(10.0, std::ceil(std::log10(std::max(hi, 1e-12)))));
    const double x_lo = std::log2(static_cast<double>(s.ks.front())), x_hi = std::log2(static_cast<double>(s.ks.back()));
    const auto X = [&](double k) { return a.x + static_cast<float>((std::log2(k) - x_lo) / (x_hi - x_lo)) * (b.x - a.x); };
    const auto Y = [&](double e) {
        const double v = std::clamp(std::log10(std::max(e, y_lo)), std::log10(y_lo), std::log10(y_hi));
        return b.y - static_cast<float>((v - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo))) * (b.y - a.y);
    };
    // Every decade gets a grid line; labels skip decades when they would touch (a short plot).
    const int decades = static_cast<int>(std::lround(std::log10(y_hi / y_lo)));
    const int label_every = std::max(1, static_cast<int>(std::ceil(lh * 1.1f * decades / std::max(1.0f, b.y - a.y))));
    int decade = 0;
    for (double d = y_lo; d <= y_hi * 1.0001; d *= 10, ++decade) {
        dl->AddLine({a.x, Y(d)}, {b.x, Y(d)}, grid);
        if ((decades - decade) % label_every != 0) continue;
        char t[16];
        std::snprintf(t, sizeof t, "%.0e", d);
        const std::string label = d >= 1.0 ? "1" : t;
        dl->AddText({a.x - ImGui::CalcTextSize(label.c_str()).x - lh * 0.3f, Y(d) - lh * 0.5f}, muted, label.c_str());
    }
    float last_right = -1e9f;
    for (std::size_t i = 0; i < s.ks.size(); ++i) {
        const float x = X(static_cast<double>(s.ks[i]));
        dl->AddLine({x, a.y}, {x, b.y}, grid);
        // A label only where it does not run into the one before (and only every other K when
        // they come thick).
        if (s.ks.size() > 8 && i % 2 == 1) continue;
        const std::string t = core::format_count(s.ks[i]);
        const float w = ImGui::CalcTextSize(t.c_str()).x;
        const float lx = std::min(x - w * 0.5f, p0.x + size.x - w);
        if (lx < last_right + lh * 0.5f) continue;
        dl->AddText({lx, b.y + lh * 0.2f}, muted, t.c_str());
        last_right = lx + w;
    }
    dl->AddRect(a, b, axis);
    const char* x_title = "K, the number of products summed";
    dl->AddText({(a.x + b.x - ImGui::CalcTextSize(x_title).x) * 0.5f, b.y + lh * 1.3f}, axis, x_title);
    dl->AddText({a.x - left + lh * 0.2f, p0.y}, muted, "error / exact sum (log scale)");
    if (mark_k > 0 && mark_k >= s.ks.front() && mark_k <= s.ks.back()) {
        const float x = X(static_cast<double>(mark_k));
        dashed_line(dl, {x, a.y}, {x, b.y}, IM_COL32(255, 255, 255, 200), 1.5f, lh * 0.3f);
        const std::string t = "K = " + core::format_count(mark_k);
        dl->AddText({std::min(x + lh * 0.3f, b.x - ImGui::CalcTextSize(t.c_str()).x), a.y + lh * 1.3f}, axis, t.c_str());
    }

    const float thick = std::max(2.0f, lh * 0.14f), marker = std::max(3.5f, lh * 0.3f);
    for (const core::DotSweepLine& l : s.lines) {
        const ImU32 c = format_colour(l.inputs);
        const bool narrow = l.accumulate != core::FpFormat::Fp32;
        const bool visible = shown(l, hide_narrow, hide_fp32);
        if (visible) {
            for (std::size_t i = 0; i + 1 < s.ks.size(); ++i) {
                const ImVec2 p{X(static_cast<double>(s.ks[i])), Y(l.error[i])};
                const ImVec2 q{X(static_cast<double>(s.ks[i + 1])), Y(l.error[i + 1])};
                if (narrow) dashed_line(dl, p, q, c, thick, lh * 0.45f);
                else dl->AddLine(p, q, c, thick);
            }
            for (std::size_t i = 0; i < s.ks.size(); ++i)
                draw_marker(dl, {X(static_cast<double>(s.ks[i])), Y(l.error[i])}, marker, format_marker(l.inputs), c,
                            !narrow);
        }
    }
    // Legend: a solid stroke with each format's marker, then the two styles in the text colour.
    for (core::FpFormat f : core::kAllFormats) {
        const ImVec2 at = legend_at(static_cast<int>(f));
        const ImU32 c = format_colour(f);
        dl->AddLine({at.x, at.y + lh * 0.5f}, {at.x + lh * 1.6f, at.y + lh * 0.5f}, c, thick);
        draw_marker(dl, {at.x + lh * 0.8f, at.y + lh * 0.5f}, marker, format_marker(f), c, true);
        dl->AddText({at.x + lh * 2.0f, at.y}, axis, (std::string(core::format_label(f)) + " inputs").c_str());
    }
    for (const bool narrow : {false, true}) {
        const ImVec2 at = legend_at(narrow ? 5 : 4);
        const ImVec2 la{at.x, at.y + lh * 0.5f}, lb{at.x + lh * 1.6f, at.y + lh * 0.5f};
        if (narrow) dashed_line(dl, la, lb, axis, thick, lh * 0.3f);
        else dl->AddLine(la, lb, axis, thick);
        const bool hidden = narrow ? hide_narrow : hide_fp32;
        dl->AddText({at.x + lh * 2.0f, at.y}, hidden ? muted : axis, narrow ? dashed_label : solid_label);
    }
}

void draw_dot_table(const core::DotSweep& s, int64_t k, bool hide_narrow, bool hide_fp32) {
    if (!s.ok) return;
    const auto it = std::find(s.ks.begin(), s.ks.end(), k);
    const std::size_t at = it == s.ks.end() ? s.ks.size() - 1 : static_cast<std::size_t>(it - s.ks.begin());
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("##dot_at_k", 5, flags)) return;
    // The table says where it stands in its corner: the K, and that each cell is an error.
    const std::string corner = "K = " + core::format_count(s.ks[at]);
    ImGui::TableSetupColumn(corner.c_str());
    for (core::FpFormat f : core::kAllFormats) ImGui::TableSetupColumn((std::string(core::format_label(f)) + " inputs").c_str());
    ImGui::TableHeadersRow();
    for (const bool narrow : {false, true}) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(narrow ? "own-format sum" : "FP32 sum");
        for (core::FpFormat f : core::kAllFormats) {
            ImGui::TableNextColumn();
            const core::DotSweepLine* l = s.find(f, narrow ? f : core::FpFormat::Fp32);
            if (!l || (narrow && f == core::FpFormat::Fp32)) {
                ImGui::TextColored(kMutedColour, "%s", narrow ? "(same as FP32)" : "");
            } else if ((narrow && hide_narrow) || (!narrow && hide_fp32)) {
                ImGui::TextColored(kMutedColour, "?");
            } else {
                ImGui::TextColored(to_vec4(kColourBlindFormats[static_cast<int>(f)]), "%s",
                                   core::relative_error_text(l->error[at]).c_str());
            }
        }
    }
    ImGui::EndTable();
}

void draw_kernel_check(const KernelCheck& c) {
    if (!c.ok) {
        text_status(Status::Error, ("The simulated kernel did not run: " + c.error).c_str());
        return;
    }
    const std::string shape = std::to_string(c.m) + " x " + std::to_string(c.k) + " times " + std::to_string(c.k) +
                              " x " + std::to_string(c.n);
    if (c.outputs_differing == 0) {
        text_status(Status::Ok, ("The whole kernel on cuda-sim, " + shape + " in " + kern::mma_input_label(c.input) +
                                 ": " + std::to_string(c.warps) + " warps, " + std::to_string(c.instructions) +
                                 " mma.sync; every output equals cpu-scalar's loop on the same rounded inputs, bit "
                                 "for bit.")
                                    .c_str());
    } else {
        text_status(Status::Error, ("The whole kernel on cuda-sim, " + shape + ": " +
                                    core::format_count(c.outputs_differing) + " outputs differ from cpu-scalar's.")
                                       .c_str());
    }
    ImGui::TextColored(kMutedColour, "Simulated in %s: the simulator's time on this CPU, never a GPU time.",
                       core::format_duration(c.sim_ns).c_str());
}

void TensorView::draw_dot_panel() {
    if (!result_) {
        draw_result_note();
        return;
    }
    const core::DotSweep& s = result_->sweep;
    if (!s.ok) {
        text_status(Status::Error, ("The sweep did not run: " + s.error).c_str());
        return;
    }
    if (!result_matches_config())
        ImGui::TextColored(kAccentColour, "Showing the last run (K up to %s, %d pairs); press Run for the new settings.",
                           core::format_count(s.config.max_k).c_str(), s.config.trials);
    const auto [hide_narrow, hide_fp32] = hidden_lines();
    const std::string note = std::string(hide_narrow || hide_fp32 ? "Greyed lines come when you answer. " : "") +
                             "x, y uniform in [0, 1), " + std::to_string(s.config.trials) +
                             " pairs, against FP64. TF32 and FP16 lines coincide: the same 10 mantissa bits. "
                             "IEEE rounding, not a tensor core's own (undocumented) rounding.";
    // Room for the note under the plot, at this width.
    const float note_h = ImGui::CalcTextSize(note.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y +
                         ImGui::GetStyle().ItemSpacing.y * 2.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_dot_plot(s, {avail.x, std::max(avail.y - note_h, ImGui::GetTextLineHeight() * 8)},
                  prompt_k() > 0 ? prompt_k() : 0, hide_narrow, hide_fp32);
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("%s", note.c_str());
    ImGui::PopStyleColor();
}

}  // namespace gpulab::app
