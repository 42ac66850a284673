// The tensor-core lesson's two training panels (issue 29 part 3). "Gradients in FP16": one real
// batch's weight gradients of the training lesson's CNN, and the gradients flowing between its
// layers (which underflow first, issue 42), by power of two, each bar coloured by what FP16 makes of
// it under the loss scale, the bands named above the bars so the colour is never the only sign; the
// table under it counts exactly (core cast_counts), also for BF16. "Master weights":
// a weight of 1 minus the same small step, update after update, kept in FP32, TF32, BF16 and FP16.
// Everything comes from core/train/gradient_precision.h. Checked by eye in the screenshots of
// steps 7-9 and by tests/tensor_gui_tests.cmake.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "measure/format.h"
#include "tensor_view.h"
#include "widgets/palette_colours.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// FP16's edges as powers of two: values below 2^-25 round to 0 (2^-25 itself ties to even, 0),
// [2^-24, 2^-14) are subnormal, 2^15 is the top binade (65,504 its largest number).
constexpr int kFp16LostBelow = -25, kFp16NormalFrom = -14, kFp16OverflowFrom = 16;

enum class Fate { Lost, Subnormal, Normal, Overflow };

// What FP16 makes of the values in [2^p, 2^(p+1)) scaled by 2^s, by the bin's lower edge (the exact
// counts, edge values included, are in the table).
Fate fate_of(int p, int s) {
    const int q = p + s;
    if (q < kFp16LostBelow) return Fate::Lost;
    if (q < kFp16NormalFrom) return Fate::Subnormal;
    if (q < kFp16OverflowFrom) return Fate::Normal;
    return Fate::Overflow;
}

ImU32 with_alpha(ImVec4 c, float alpha) {
    c.w *= alpha;
    return ImGui::GetColorU32(c);
}

ImU32 fate_colour(Fate f, float alpha = 1.0f) {
    switch (f) {
        case Fate::Lost: return with_alpha(kErrorColour, alpha);
        case Fate::Subnormal: return with_alpha(kWarnColour, alpha);
        case Fate::Normal: return with_alpha(kOkColour, alpha);
        case Fate::Overflow: return to_u32(kOkabeReddishPurple, alpha);
    }
    return 0;
}

const char* fate_label(Fate f) {
    switch (f) {
        case Fate::Lost: return "lost: become 0";
        case Fate::Subnormal: return "subnormal: fewer bits";
        case Fate::Normal: return "kept";
        case Fate::Overflow: return "overflow: infinity";
    }
    return "";
}

std::string power_label(int p) { return "2^" + std::to_string(p); }

std::string percent_of(std::int64_t part, double whole) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", whole > 0 ? 100.0 * static_cast<double>(part) / whole : 0.0);
    return buf;
}

}  // namespace

GradientCounts count_gradients(const train::BatchGradients& g, int scale_exp) {
    GradientCounts c;
    c.scale_exp = scale_exp;
    c.histogram = train::power_histogram(g.gradients, -40, 4);
    const double scale = std::ldexp(1.0, scale_exp);
    c.fp16 = train::cast_counts(g.gradients, core::FpFormat::Fp16, scale);
    c.bf16 = train::cast_counts(g.gradients, core::FpFormat::Bf16, scale);
    double safe = train::largest_safe_scale(g.gradients, core::FpFormat::Fp16);
    const train::ScaledGradientCounts& between = g.activations;
    const auto at = static_cast<std::size_t>(scale_exp);
    if (!between.empty() && at < between.fp16.size() && at < between.bf16.size()) {
        c.has_between = true;
        c.between_histogram = between.histogram;
        c.between_fp16 = between.fp16[at];
        c.between_bf16 = between.bf16[at];
        safe = std::min(safe, between.largest_safe_fp16_scale);
    }
    c.safe_exp = static_cast<int>(std::lround(std::log2(safe)));
    return c;
}

namespace {

double share(const train::PowerHistogram& h, int p, double nonzero) {
    if (nonzero <= 0 || p < h.min_power || p > h.max_power) return 0.0;
    return static_cast<double>(h.counts[static_cast<std::size_t>(p - h.min_power)]) / nonzero;
}

}  // namespace

void draw_gradient_histogram(const GradientCounts& c, ImVec2 size, bool coloured) {
    const train::PowerHistogram& h = c.histogram;
    if (c.fp16.total == 0) return;
    const int scale_exp = c.scale_exp;
    const train::PowerHistogram& hb = c.between_histogram;
    const double nz = c.fp16.nonzero(), nzb = c.has_between ? c.between_fp16.nonzero() : 0.0;
    // The x axis covers what this batch holds, widened to FP16's whole range so the bands show.
    int seen_lo = h.smallest_seen, seen_hi = h.largest_seen;
    if (nzb > 0) {
        seen_lo = std::min(seen_lo, hb.smallest_seen);
        seen_hi = std::max(seen_hi, hb.largest_seen);
    }
    const int lo = std::max(h.min_power, std::min(seen_lo, kFp16LostBelow - scale_exp) - 1);
    const int hi = std::min(h.max_power, std::max(seen_hi, kFp16OverflowFrom - scale_exp) + 1);
    double tallest = 0.01;
    for (int p = lo; p <= hi; ++p) tallest = std::max({tallest, share(h, p, nz), share(hb, p, nzb)});

    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::Dummy(size);
    const float lh = ImGui::GetTextLineHeight();
    const float left = ImGui::CalcTextSize("100 %").x + lh * 0.6f;
    const float legend_h = c.has_between ? lh * 1.3f : 0.0f;
    const ImVec2 a{p0.x + left, p0.y + legend_h + lh * 2.6f}, b{p0.x + size.x - lh * 0.5f, p0.y + size.y - lh * 1.6f};
    if (b.x - a.x < lh * 8 || b.y - a.y < lh * 3) return;
    const int bins = hi - lo + 1;
    const float bw = (b.x - a.x) / static_cast<float>(bins);
    const ImU32 grid = IM_COL32(90, 90, 96, 120), muted = ImGui::GetColorU32(kMutedColour);
    const ImU32 neutral = ImGui::GetColorU32(ImGuiCol_PlotHistogram);
    const auto bar_colour = [&](Fate f, float alpha) { return coloured ? fate_colour(f, alpha) : with_alpha(ImGui::ColorConvertU32ToFloat4(neutral), alpha); };

    // y: share of the set's non-zero values, with gridlines at round percents.
    const double top = tallest * 100.0;
    const double tick = top > 40 ? 20 : top > 20 ? 10 : top > 8 ? 5 : top > 4 ? 2 : 1;
    for (double v = 0; v <= top + 1e-9; v += tick) {
        const float y = b.y - static_cast<float>(v / top) * (b.y - a.y);
        dl->AddLine({a.x, y}, {b.x, y}, grid);
        char t[16];
        std::snprintf(t, sizeof t, "%.0f %%", v);
        dl->AddText({a.x - ImGui::CalcTextSize(t).x - lh * 0.3f, y - lh * 0.5f}, muted, t);
    }
    // Bars: weight gradients solid in the left half of each power of two, the gradients between
    // layers outlined in the right half; the band each power falls in under this scale behind them.
    const float half = c.has_between ? bw * 0.5f : bw;
    for (int p = lo; p <= hi; ++p) {
        const float x0 = a.x + static_cast<float>(p - lo) * bw;
        const Fate f = fate_of(p, scale_exp);
        if (coloured) dl->AddRectFilled({x0, a.y}, {x0 + bw, b.y}, fate_colour(f, 0.10f));
        const auto bar_top = [&](double v) { return std::min(b.y - static_cast<float>(v / tallest) * (b.y - a.y), b.y - 2.0f); };
        if (const double v = share(h, p, nz); v > 0)
            dl->AddRectFilled({x0 + 1, bar_top(v)}, {x0 + half - (c.has_between ? 0.0f : 1.0f), b.y}, bar_colour(f, 1.0f));
        if (const double v = share(hb, p, nzb); v > 0) {
            dl->AddRectFilled({x0 + half, bar_top(v)}, {x0 + bw - 1, b.y}, bar_colour(f, 0.35f));
            dl->AddRect({x0 + half, bar_top(v)}, {x0 + bw - 1, b.y}, bar_colour(f, 1.0f), 0.0f, 0, std::max(1.0f, lh * 0.08f));
        }
    }
    // The bands' names above the plot, each centred on its stretch of the axis when it fits.
    int start = lo;
    while (coloured && start <= hi) {
        const Fate f = fate_of(start, scale_exp);
        int end = start;
        while (end + 1 <= hi && fate_of(end + 1, scale_exp) == f) ++end;
        const float x0 = a.x + static_cast<float>(start - lo) * bw, x1 = a.x + static_cast<float>(end + 1 - lo) * bw;
        dl->AddLine({x0 + 2, a.y - lh * 0.4f}, {x1 - 2, a.y - lh * 0.4f}, fate_colour(f), std::max(2.0f, lh * 0.12f));
        const char* name = fate_label(f);
        const char* shorter = f == Fate::Lost ? "lost" : f == Fate::Subnormal ? "subnormal" : f == Fate::Overflow ? "overflow" : "kept";
        const char* shown = ImGui::CalcTextSize(name).x <= x1 - x0 ? name : ImGui::CalcTextSize(shorter).x <= x1 - x0 ? shorter : "";
        if (*shown)
            dl->AddText({(x0 + x1) * 0.5f - ImGui::CalcTextSize(shown).x * 0.5f, a.y - lh * 1.55f}, fate_colour(f), shown);
        start = end + 1;
    }
    // The legend: which bar is which set.
    if (c.has_between) {
        const ImU32 ink = ImGui::GetColorU32(ImGuiCol_Text);
        float x = a.x;
        const float y = p0.y + lh * 0.1f, box = lh * 0.75f;
        dl->AddRectFilled({x, y + lh * 0.12f}, {x + box, y + lh * 0.12f + box}, ink);
        const std::string w = "weight gradients (" + core::format_count(static_cast<std::int64_t>(nz)) + " non-zero)";
        dl->AddText({x + box + lh * 0.3f, y}, ink, w.c_str());
        x += box + lh * 1.5f + ImGui::CalcTextSize(w.c_str()).x;
        dl->AddRect({x, y + lh * 0.12f}, {x + box, y + lh * 0.12f + box}, ink, 0.0f, 0, std::max(1.0f, lh * 0.08f));
        const std::string g = "gradients between layers (" + core::format_count(static_cast<std::int64_t>(nzb)) + " non-zero)";
        dl->AddText({x + box + lh * 0.3f, y}, ink, g.c_str());
    }
    // x: powers of two, labelled where they do not touch.
    float last_right = -1e9f;
    for (int p = lo; p <= hi; ++p) {
        const std::string t = power_label(p);
        const float w = ImGui::CalcTextSize(t.c_str()).x;
        const float x = a.x + (static_cast<float>(p - lo) + 0.5f) * bw - w * 0.5f;
        if (x < last_right + lh * 0.6f) continue;
        dl->AddText({x, b.y + lh * 0.25f}, muted, t.c_str());
        last_right = x + w;
    }
    dl->AddLine({a.x, b.y}, {b.x, b.y}, ImGui::GetColorU32(ImGuiCol_Text));
}

void draw_gradient_table(const train::BatchGradients& g, const GradientCounts& counts) {
    if (!g.ok) {
        text_status(Status::Error, ("No gradients: " + g.error).c_str());
        return;
    }
    if (ImGui::BeginTable("##gradient_counts", 7, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        for (const char* h : {"gradients", "stored as", "loss scale", "lost: 0", "subnormal", "kept", "overflow"})
            ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        struct Row {
            const char* set;
            const train::CastCounts* counts;
        };
        std::vector<Row> rows = {{"weights", &counts.fp16}};
        if (counts.has_between) rows.push_back({"between layers", &counts.between_fp16});
        rows.push_back({"weights", &counts.bf16});
        if (counts.has_between) rows.push_back({"between layers", &counts.between_bf16});
        for (const Row& row : rows) {
            const train::CastCounts& c = *row.counts;
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::TextUnformatted(row.set);
            ImGui::TableSetColumnIndex(1);
            ImGui::TextUnformatted(core::format_label(c.format));
            ImGui::TableSetColumnIndex(2);
            ImGui::TextUnformatted(power_label(counts.scale_exp).c_str());
            const std::int64_t parts[4] = {c.lost, c.subnormal, c.normal, c.overflow};
            for (int i = 0; i < 4; ++i) {
                ImGui::TableSetColumnIndex(3 + i);
                const std::string t = core::format_count(parts[i]) + " (" + percent_of(parts[i], c.nonzero()) + ")";
                if (parts[i] > 0 && i != 2)
                    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(fate_colour(static_cast<Fate>(i))), "%s", t.c_str());
                else
                    ImGui::TextUnformatted(t.c_str());
            }
        }
        ImGui::EndTable();
    }
    const std::int64_t zeros = counts.fp16.zero + (counts.has_between ? counts.between_fp16.zero : 0);
    ImGui::TextWrapped("Percent of each set's non-zero values; %s more are exactly 0 (a ReLU that was off, or a pixel the "
                       "pooling passed over, sends no gradient back). The largest loss scale that overflows none of this batch in FP16: 2^%d.",
                       core::format_count(zeros).c_str(), counts.safe_exp);
    draw_gradient_source(g);
}

void draw_gradient_source(const train::BatchGradients& g) {
    if (!g.ok) return;
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("%s, %s engine, the training lesson's CNN after %d SGD steps; loss %.3f.", g.pictures.c_str(),
                       g.engine.c_str(), g.steps_before, g.loss);
    ImGui::PopStyleColor();
}

void draw_weight_walk(const train::WeightWalk& w, ImVec2 size) {
    if (w.at.size() < 2) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::Dummy(size);
    const float lh = ImGui::GetTextLineHeight();
    const float left = ImGui::CalcTextSize("1.0000").x + lh * 0.6f;
    const float legend_h = lh * 1.4f;
    const ImVec2 a{p0.x + left, p0.y + legend_h + lh * 0.6f}, b{p0.x + size.x - lh * 0.5f, p0.y + size.y - lh * 1.6f};
    if (b.x - a.x < lh * 8 || b.y - a.y < lh * 3) return;
    double y_lo = std::min(w.start, w.exact_end), y_hi = std::max(w.start, w.exact_end);
    for (const auto& line : w.value)
        for (double v : line) {
            y_lo = std::min(y_lo, v);
            y_hi = std::max(y_hi, v);
        }
    if (y_hi - y_lo < 1e-12) y_hi = y_lo + 1.0;
    // Round ticks: a step of 1, 2 or 5 times a power of ten, about four of them.
    const double raw = (y_hi - y_lo) / 4.0, mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double tick = raw / mag > 5 ? 10 * mag : raw / mag > 2 ? 5 * mag : raw / mag > 1 ? 2 * mag : mag;
    y_lo = std::floor(y_lo / tick - 0.25) * tick;
    y_hi = std::ceil(y_hi / tick + 0.25) * tick;
    const auto X = [&](int u) { return a.x + static_cast<float>(u) / static_cast<float>(w.updates) * (b.x - a.x); };
    const auto Y = [&](double v) { return b.y - static_cast<float>((v - y_lo) / (y_hi - y_lo)) * (b.y - a.y); };
    const ImU32 grid = IM_COL32(90, 90, 96, 120), muted = ImGui::GetColorU32(kMutedColour);
    for (double v = y_lo; v <= y_hi + tick * 0.01; v += tick) {
        dl->AddLine({a.x, Y(v)}, {b.x, Y(v)}, grid);
        char t[32];
        std::snprintf(t, sizeof t, "%.4g", std::fabs(v) < tick * 1e-6 ? 0.0 : v);
        dl->AddText({a.x - ImGui::CalcTextSize(t).x - lh * 0.3f, Y(v) - lh * 0.5f}, muted, t);
    }
    for (int i = 0; i <= 4; ++i) {
        const int u = w.updates * i / 4;
        const std::string t = core::format_count(u);
        const float tw = ImGui::CalcTextSize(t.c_str()).x;
        dl->AddText({std::clamp(X(u) - tw * 0.5f, a.x - tw * 0.5f, b.x - tw), b.y + lh * 0.25f}, muted, t.c_str());
    }
    // The exact path, thin and grey; then each format, with its marker at every sample so lines on
    // top of each other (BF16, TF32 and FP16 all stay at 1) still show each one.
    dl->AddLine({X(0), Y(w.start)}, {X(w.updates), Y(w.exact_end)}, muted, 1.0f);
    static constexpr Marker kMarkers[] = {Marker::Circle, Marker::Square, Marker::Diamond, Marker::TriangleUp};
    for (std::size_t f = 0; f < 4; ++f) {
        const ImU32 colour = format_colour(core::kAllFormats[f]);
        for (std::size_t i = 1; i < w.at.size(); ++i)
            dl->AddLine({X(w.at[i - 1]), Y(w.value[f][i - 1])}, {X(w.at[i]), Y(w.value[f][i])}, colour, 2.0f);
        for (std::size_t i = 0; i < w.at.size(); ++i)
            draw_marker(dl, {X(w.at[i]) + static_cast<float>(f) * lh * 0.18f, Y(w.value[f][i])}, lh * 0.28f,
                        kMarkers[f], colour);
    }
    // The legend across the top.
    float x = a.x;
    for (std::size_t f = 0; f < 4; ++f) {
        const ImU32 colour = format_colour(core::kAllFormats[f]);
        draw_marker(dl, {x + lh * 0.4f, p0.y + lh * 0.6f}, lh * 0.3f, kMarkers[f], colour);
        const char* label = core::format_label(core::kAllFormats[f]);
        dl->AddText({x + lh * 0.9f, p0.y + lh * 0.1f}, colour, label);
        x += ImGui::CalcTextSize(label).x + lh * 2.2f;
    }
    dl->AddLine({x, p0.y + lh * 0.6f}, {x + lh * 1.2f, p0.y + lh * 0.6f}, muted, 1.0f);
    dl->AddText({x + lh * 1.5f, p0.y + lh * 0.1f}, muted, "exact");
}

void draw_weight_walk_table(const train::WeightWalk& w) {
    if (w.at.empty()) return;
    if (ImGui::BeginTable("##weight_walk", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        for (const char* h : {"weight kept in", "after the last update", "half the gap below the start", "moved?"})
            ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        for (std::size_t f = 0; f < 4; ++f) {
            const core::FpFormat format = core::kAllFormats[f];
            const double end = w.value[f].back();
            // A step smaller than half the gap to the next number below the weight rounds back to it.
            const std::uint32_t bits = core::encode(format, w.start);
            const double half_step = bits > 0 ? (w.start - core::decode(format, bits - 1)) / 2.0 : 0.0;
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            ImGui::TextUnformatted(core::format_label(format));
            ImGui::TableSetColumnIndex(1);
            ImGui::Text("%.6f", end);
            ImGui::TableSetColumnIndex(2);
            ImGui::Text("%.3g", half_step);
            ImGui::TableSetColumnIndex(3);
            const bool moved = end != core::round_to(format, w.start);
            // One line, not wrapped: the column sizes to it.
            const Status st = moved ? Status::Ok : Status::Error;
            status_mark(st);
            ImGui::TextColored(to_vec4(status_rgb(st, colour_blind_palette())), "%s",
                               moved ? "yes" : (core::round_to(format, w.step) < half_step ? "no: each step rounds away" : "no"));
        }
        ImGui::EndTable();
    }
    ImGui::TextColored(kMutedColour, "A weight of %.4g minus %.3g, %s times (exactly: %.6f); each sum rounded to the format.",
                       w.start, w.step, core::format_count(w.updates).c_str(), w.exact_end);
}

// [SECTION] the two panels

void TensorView::draw_gradients_panel() {
    if (!result_) {
        draw_result_note();
        return;
    }
    const train::BatchGradients& g = result_->gradients;
    if (!g.ok) {
        text_status(Status::Error, ("No gradients were computed: " + g.error).c_str());
        return;
    }
    // The prompt's answer is in the colours: until a pick the bars stay neutral, the axis's powers of
    // two and the step's text being what the student reasons from.
    const bool answering = predict_ && predict_->reveal.rfind("gradients-thinned:", 0) == 0 && pick_ < 0 && !reveal_now_;
    const GradientCounts& counts = gradient_counts();
    std::string note = "Each bar: the share of the batch's non-zero " + std::string(counts.has_between ? "gradients of its set" : "weight gradients") +
                       " lying between that power of two and the next, multiplied by the loss scale 2^" +
                       std::to_string(loss_scale_exp_) + " before FP16 stores them. ";
    if (counts.has_between)
        note += "Solid: the " + core::format_count(static_cast<std::int64_t>(g.gradients.size())) +
                " weight gradients; outlined: the gradient arriving at each convolution and dense layer from above, one "
                "per picture and output value, which FP16 training also stores in FP16. ";
    note += answering ? "The colours appear when you answer."
                      : "The colour and the band above say what FP16 makes of them. BF16 keeps FP32's 8 exponent bits, "
                        "so nothing here falls out of its range.";
    const float note_h = ImGui::CalcTextSize(note.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y +
                         ImGui::GetStyle().ItemSpacing.y * 2.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_gradient_histogram(counts, {avail.x, std::max(avail.y - note_h, ImGui::GetTextLineHeight() * 8)}, !answering);
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("%s", note.c_str());
    ImGui::PopStyleColor();
}

void TensorView::draw_master_panel() {
    const train::WeightWalk& w = weight_walk();
    const std::string note = "FP32 master weights: mixed-precision training does its multiplications in FP16 or BF16 "
                             "but keeps a copy of every weight in FP32 and adds each update there, so small updates "
                             "add up; a weight kept in FP16 or BF16 would stay where it is. Computed now, on this CPU, "
                             "with IEEE rounding.";
    const float note_h = ImGui::CalcTextSize(note.c_str(), nullptr, false, ImGui::GetContentRegionAvail().x).y +
                         ImGui::GetStyle().ItemSpacing.y * 2.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    draw_weight_walk(w, {avail.x, std::max(avail.y - note_h, ImGui::GetTextLineHeight() * 8)});
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("%s", note.c_str());
    ImGui::PopStyleColor();
}

}  // namespace gpulab::app
