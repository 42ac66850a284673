// Timing plots on ImDrawList: see timing_plot.h. Plot idioms follow the ImGui 1.86 demo's
// "Canvas" section (InvisibleButton reserves the area, the window draw list paints into it).
#include "timing_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "compare_view.h"
#include "recorded_gpu.h"
#include "measure/format.h"
#include "gpu_backends.h"
#include "gpu_model/gpu_model.h"
#include "measure/machine_info.h"
#include "widgets/ui_helpers.h"
#include "widgets/presenter_palette.h"

namespace gpulab::app {

namespace {

constexpr ImU32 kGrey = IM_COL32(150, 150, 150, 255);
const ImVec4 kMuted{0.60f, 0.60f, 0.60f, 1.0f};

const core::BackendReport* find_report(const core::ActivationRun& run, std::string_view name) {
    for (const auto& r : run.reports)
        if (r.backend == name) return &r;
    return nullptr;
}

// Nice round step for an axis covering [0, span] with about `ticks` divisions.
double nice_step(double span, int ticks) {
    double raw = span / std::max(ticks, 1);
    double mag = std::pow(10.0, std::floor(std::log10(raw)));
    double norm = raw / mag;
    double nice = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
    return nice * mag;
}

std::string ms_label(double ms) {
    return core::format_duration(static_cast<int64_t>(ms * 1e6));
}

void tooltip_if(bool hovered, const std::string& text) {
    if (!hovered) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

}  // namespace

// `text` cut at a word so that it fits `width` on one line, with an ellipsis; unchanged when it
// fits. Rows stay one line tall so the whole timing panel fits the window; the full text goes
// into a tooltip.
std::string fit_line(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    const char* kEllipsis = "\u2026";
    std::size_t cut = text.size();
    while (cut > 0) {
        std::size_t space = text.rfind(' ', cut - 1);
        cut = space == std::string::npos ? 0 : space;
        std::string t = text.substr(0, cut) + kEllipsis;
        if (ImGui::CalcTextSize(t.c_str()).x <= width) return t;
    }
    return kEllipsis;
}

ImU32 backend_color(std::string_view backend, float alpha) {
    if (colour_blind_palette()) return okabe_ito_backend_color(backend, alpha);
    // Fixed colours for the backends a student meets first (CPU warm, GPU cool); a stable hash for the rest.
    struct Entry { std::string_view name; ImVec4 c; };
    static const Entry kKnown[] = {
        {"cpu-scalar", {0.95f, 0.60f, 0.20f, 1}},   {"cpu-parallel", {0.95f, 0.85f, 0.30f, 1}},
        {"cpu-onednn", {0.80f, 0.50f, 0.90f, 1}},   {"cuda-kernel", {0.30f, 0.85f, 0.45f, 1}},
        {"cudnn", {0.35f, 0.70f, 1.00f, 1}},        {"gpu-cublas", {0.25f, 0.85f, 0.85f, 1}},
    };
    for (const auto& e : kKnown)
        if (e.name == backend) return ImGui::ColorConvertFloat4ToU32({e.c.x, e.c.y, e.c.z, alpha});
    uint32_t h = 2166136261u;
    for (char ch : backend) h = (h ^ static_cast<uint8_t>(ch)) * 16777619u;
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(static_cast<float>(h % 360) / 360.0f, 0.6f, 0.95f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32({r, g, b, alpha});
}

// [SECTION] history

void SampleHistory::add_run(const core::ActivationRun& run) {
    for (const auto& report : run.reports) {
        if (!report.ran || report.samples_ns.empty()) continue;
        if (!core::kind_is_timed(report.kind)) continue;  // a simulation's time is not a speed to plot
        auto it = std::find_if(series_.begin(), series_.end(),
                               [&](const Series& s) { return s.backend == report.backend; });
        if (it == series_.end()) {
            series_.push_back({report.backend, {}, 0});
            it = series_.end() - 1;
        }
        for (int64_t ns : report.samples_ns) {
            float ms = static_cast<float>(ns) * 1e-6f;
            if (it->ms.size() < kCapacity) {
                it->ms.push_back(ms);
            } else {
                it->ms[it->head] = ms;
                it->head = (it->head + 1) % kCapacity;
            }
        }
    }
}

bool SampleHistory::empty() const {
    return std::all_of(series_.begin(), series_.end(), [](const Series& s) { return s.ms.empty(); });
}

// [SECTION] caption

std::vector<std::string> caption_lines(const core::ActivationRun& run, std::string_view lesson_title) {
    std::vector<std::string> lines = machine_caption_lines(lesson_title, run.started_unix_s);
    const int64_t n = run.input.size();
    const double bytes = static_cast<double>(n) * sizeof(float);
    lines.push_back("Op: " + run.op.label() + " on " + core::format_pow2(n) + " elements " + run.input.shape_string() +
                    ", " + core::format_bytes(bytes) + " in + " + core::format_bytes(bytes) + " out, input: " +
                    (run.params.image_path.empty() ? std::string("generated feature map") : run.params.image_path));
    return lines;
}

void draw_caption_block(const std::vector<std::string>& lines) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float pad = ImGui::GetStyle().FramePadding.x;
    ImGui::BeginGroup();
    ImGui::Indent(pad);
    ImGui::Dummy({0, pad * 0.5f});
    // Wrapped inside the frame: a long line (the CUDA runtime's exact error on a machine without a
    // driver) would otherwise run past the picture's right edge and be cut off in the export.
    ImGui::PushTextWrapPos(p0.x - ImGui::GetWindowPos().x + ImGui::GetContentRegionAvail().x - pad);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (i != 0) ImGui::PushStyleColor(ImGuiCol_Text, kMuted);
        ImGui::TextWrapped("%s", lines[i].c_str());
        if (i != 0) ImGui::PopStyleColor();
    }
    ImGui::PopTextWrapPos();
    ImGui::Dummy({0, pad * 0.5f});
    ImGui::Unindent(pad);
    ImGui::EndGroup();
    const ImVec2 p1{p0.x + ImGui::GetContentRegionAvail().x, ImGui::GetItemRectMax().y};
    dl->AddRect(p0, p1, IM_COL32(120, 120, 120, 160), 4.0f);
}

// [SECTION] verdict

std::string not_run_line(const std::string& reason) {
    return "not run: " + (core::plain_gpu_reason(reason).empty() ? reason : std::string("no GPU here"));
}

namespace {

}  // namespace

std::string simulated_time_text(const core::BackendReport& report) {
    return (report.check.pass ? "result matches cpu-scalar" : "result differs from cpu-scalar") +
           std::string("; simulated on the CPU in ") + core::format_duration(report.total.median_ns) +
           " (not a GPU speed)";
}

void draw_verdict(const core::BackendReport& report) {
    std::string text, full;
    ImVec4 colour = kMuted;
    bool marked = false;  // a tick or a cross before the words: the colour is never the only cue
    Status status = Status::Ok;
    if (!report.availability.ok) {
        text = not_run_line(report.availability.reason);
        full = "not run: " + report.availability.reason;
    } else if (!report.ran) {
        text = "not run: " + (report.error.empty() ? std::string("skipped") : report.error);
        if (!report.error.empty()) {
            colour = kErrorColour;
            marked = true;
            status = Status::Error;
        }
    } else if (report.check.pass) {
        text = report.check.verdict;
        colour = kOkColour;
        marked = true;
    } else {
        text = report.check.verdict.empty() ? "MISMATCH" : report.check.verdict;
        colour = kErrorColour;
        marked = true;
        status = Status::Error;
    }
    if (full.empty()) full = text;
    if (marked) status_mark(status);
    const std::string shown = fit_line(text, ImGui::GetContentRegionAvail().x);
    ImGui::TextColored(colour, "%s", shown.c_str());
    tooltip_if(shown != full && ImGui::IsItemHovered(), full);
}

double speedup_vs_scalar(const core::ActivationRun& run, const core::BackendReport& report) {
    const core::BackendReport* scalar = find_report(run, "cpu-scalar");
    if (!scalar || !scalar->ran || !report.ran || report.total.median_ns <= 0) return 0.0;
    if (!core::kind_is_timed(report.kind)) return 0.0;  // cuda-sim: never a speed-up
    return static_cast<double>(scalar->total.median_ns) / static_cast<double>(report.total.median_ns);
}

// [SECTION] history plot

void draw_history_plot(const SampleHistory& history, ImVec2 size) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##history", size);
    const ImVec2 p1{p0.x + size.x, p0.y + size.y};
    dl->AddRectFilled(p0, p1, IM_COL32(25, 27, 32, 255), 3.0f);
    dl->AddRect(p0, p1, IM_COL32(90, 90, 90, 255), 3.0f);
    const float lh = ImGui::GetTextLineHeight();
    if (history.empty()) {
        const char* msg = "no samples yet: press Run (R) or switch on live";
        ImVec2 ts = ImGui::CalcTextSize(msg);
        dl->AddText({p0.x + (size.x - ts.x) * 0.5f, p0.y + (size.y - ts.y) * 0.5f}, kGrey, msg);
        return;
    }
    float lo = 1e30f, hi = 0.0f;
    for (const auto& s : history.series())
        for (float v : s.ms) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    lo = std::max(lo, 1e-6f);
    hi = std::max(hi, lo * 1.01f);
    // Backends differ by 100x or more; a linear axis would flatten the fast ones onto zero.
    const bool log_y = hi / lo > 20.0f;
    const float axis_w = ImGui::CalcTextSize("000.0 ms").x + 8.0f;
    const ImVec2 a0{p0.x + axis_w, p0.y + lh * 0.6f};
    const ImVec2 a1{p1.x - 8.0f, p1.y - lh * 0.6f};
    double y_lo, y_hi;
    if (log_y) {
        y_lo = std::floor(std::log10(lo));
        y_hi = std::ceil(std::log10(hi));
    } else {
        y_lo = 0.0;
        double step = nice_step(hi, 4);
        y_hi = std::ceil(hi * 1.05 / step) * step;
    }
    auto to_y = [&](double ms) {
        double v = log_y ? std::log10(std::max(ms, 1e-9)) : ms;
        double t = (v - y_lo) / std::max(y_hi - y_lo, 1e-12);
        return a1.y - static_cast<float>(t) * (a1.y - a0.y);
    };
    dl->PushClipRect(p0, p1, true);
    if (log_y) {
        for (double e = y_lo; e <= y_hi + 1e-9; e += 1.0) {
            float y = to_y(std::pow(10.0, e));
            dl->AddLine({a0.x, y}, {a1.x, y}, IM_COL32(70, 70, 70, 255));
            std::string t = ms_label(std::pow(10.0, e));
            dl->AddText({p0.x + 4, y - lh * 0.5f}, kGrey, t.c_str());
        }
    } else {
        double step = nice_step(y_hi, 4);
        for (double v = 0; v <= y_hi + step * 0.01; v += step) {
            float y = to_y(v);
            dl->AddLine({a0.x, y}, {a1.x, y}, IM_COL32(70, 70, 70, 255));
            std::string t = ms_label(v);
            dl->AddText({p0.x + 4, y - lh * 0.5f}, kGrey, t.c_str());
        }
    }
    // Newest sample at the right edge; the x axis is "samples ago", not time.
    const float dx = (a1.x - a0.x) / static_cast<float>(SampleHistory::kCapacity - 1);
    std::size_t series_index = 0;
    for (const auto& s : history.series()) {
        const std::size_t n = s.count();
        if (n == 0) continue;
        std::vector<ImVec2> pts;
        pts.reserve(n);
        for (std::size_t i = 0; i < n; ++i)
            pts.push_back({a1.x - static_cast<float>(n - 1 - i) * dx, to_y(s.at(i))});
        const ImU32 c = backend_color(s.backend);
        if (n > 1) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), c, ImDrawFlags_None, 1.8f);
        // The backend's marker on every few samples, counted from the newest and staggered per
        // backend, so lines that cross or overlap stay apart without colour.
        const std::size_t every = 24, offset = (series_index++ * 6) % every;
        for (std::size_t k = n > offset ? offset : 0; k < n; k += every) draw_marker(dl, pts[n - 1 - k], 3.6f, backend_marker(s.backend), c);
    }
    // Legend, top left, on a dark backing so lines under it stay readable.
    float x = a0.x + 8.0f, y = a0.y + 2.0f;
    for (const auto& s : history.series()) {
        ImVec2 ts = ImGui::CalcTextSize(s.backend.c_str());
        dl->AddRectFilled({x - 4, y}, {x + ts.x + lh * 1.6f + 6, y + lh + 2}, IM_COL32(25, 27, 32, 220));
        dl->AddLine({x, y + lh * 0.6f}, {x + lh * 1.2f, y + lh * 0.6f}, backend_color(s.backend), 1.8f);
        draw_marker(dl, {x + lh * 0.6f, y + lh * 0.6f}, 3.6f, backend_marker(s.backend), backend_color(s.backend));
        dl->AddText({x + lh * 1.4f, y}, IM_COL32(230, 230, 230, 255), s.backend.c_str());
        x += ts.x + lh * 2.6f;
    }
    const char* scale_note = log_y ? "time per run, log scale, newest right" : "time per run, newest right";
    ImVec2 ts = ImGui::CalcTextSize(scale_note);
    // On a dark backing like the legend: the newest points run under this corner.
    dl->AddRectFilled({a1.x - ts.x - 8, a1.y - ts.y - 4}, {a1.x, a1.y}, IM_COL32(25, 27, 32, 220));
    dl->AddText({a1.x - ts.x - 4, a1.y - ts.y - 2}, kGrey, scale_note);
    dl->PopClipRect();
}

// [SECTION] median bars

const char* const kMedianBarsHowToRead =
    "median time per run (bar), fastest to slowest sample (whisker), speed-up vs cpu-scalar";

// The other machine's bars are outlined and hatched (draw_hatched_bar, app/views/compare_view.h).
namespace {

// Compact rows' second figure: how close to the measured copy limit the backend streamed.
std::string share_of_limit(const core::BackendReport& r) {
    if (!r.ran || !r.limit.ok || r.limit.gbps <= 0.0) return "";
    char t[48];
    std::snprintf(t, sizeof t, ", %.0f %% of copy speed", 100.0 * r.gbps / r.limit.gbps);
    return t;
}

}  // namespace

void draw_median_bars(const core::ActivationRun& run, float width, const core::ImportedRun* other, bool compact) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    // With a comparison a row holds two bars, this machine's above the other machine's. A recorded
    // GPU run (issue 39) brings only its GPU backends: the other rows keep one bar.
    const bool recorded = other && !other->recorded_source.empty();
    const float single_h = lh * 1.4f, double_h = lh * 2.5f;
    float label_w = 0.0f;
    int64_t max_ns = 1;
    for (const auto& r : run.reports) {
        label_w = std::max(label_w, ImGui::CalcTextSize(r.backend.c_str()).x);
        if (r.ran && core::kind_is_timed(r.kind)) max_ns = std::max(max_ns, r.total.max_ns);
    }
    // Backends the other machine ran but this one does not list get rows of their own.
    std::vector<const core::ImportedBackend*> extra;
    if (other) {
        for (const auto& b : other->backends) {
            if (!b.ran) continue;
            max_ns = std::max(max_ns, b.max_ns);
            if (!find_report(run, b.backend)) {
                extra.push_back(&b);
                label_w = std::max(label_w, ImGui::CalcTextSize(b.backend.c_str()).x);
            }
        }
    }
    // One row per backend, except that backends which did not run for the same reason share a row
    // ("cuda-kernel, cudnn  not run: no GPU here"): on a machine without a GPU that saves a line per
    // GPU backend, which is what lets the table under the bars show at 1600x900. With another
    // machine's bars every backend keeps its own row, since each may have a bar from there.
    struct Row {
        const core::BackendReport* report;
        std::string label;
        std::string why;  // the not-run line, empty for a backend that ran
    };
    // A GPU backend that did not run here, with the recording's or the estimate's bar: one row, the
    // hatched bar alone, why it did not run here in its tooltip (a row each saves the laptop a line).
    auto stand_in = [&](const core::BackendReport& r) -> const core::ImportedBackend* {
        if (!recorded || r.ran || !core::kind_is_timed(r.kind)) return nullptr;
        const core::ImportedBackend* b = other->find(r.backend);
        return b && b->ran ? b : nullptr;
    };
    // Whether a row carries the other machine's bar (never beside a simulated time).
    auto two_bars = [&](const core::BackendReport& r) {
        return other && core::kind_is_timed(r.kind) && (!recorded || other->find(r.backend)) && !stand_in(r);
    };
    std::vector<Row> rows;
    for (const auto& r : run.reports) {
        std::string why;
        if (!r.ran) why = r.availability.ok ? "not run: " + r.error : not_run_line(r.availability.reason);
        if (!r.ran && !rows.empty() && !two_bars(r) && !two_bars(*rows.back().report) && !rows.back().report->ran &&
            !stand_in(r) && !stand_in(*rows.back().report) && rows.back().why == why) {
            rows.back().label += ", " + r.backend;
            continue;
        }
        rows.push_back({&r, r.backend, why});
    }
    label_w += 10.0f;
    const std::string widest = (other ? other_value_prefix(*other) : std::string()) + "000.0 ms  (0000.0x)" +
                               (compact ? ", 100 % of copy speed  MISMATCH" : "");
    const float value_w = ImGui::CalcTextSize(widest.c_str()).x + 10.0f;
    const float bar_w = std::max(width - label_w - value_w, 40.0f);
    const float why_w = std::max(width - label_w, 40.0f);
    float total_h = double_h * static_cast<float>(extra.size());
    for (const Row& row : rows) total_h += two_bars(*row.report) ? double_h : single_h;
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("##bars", {std::max(width, 1.0f), std::max(total_h, 1.0f)});
    const bool hovered = ImGui::IsItemHovered();
    const float mouse_y = ImGui::GetIO().MousePos.y;
    const float bx = p0.x + label_w;
    auto x_of = [&](int64_t ns) { return bx + bar_w * static_cast<float>(ns) / static_cast<float>(max_ns); };
    const ImU32 wc = IM_COL32(235, 235, 235, 220);
    const ImU32 text_c = IM_COL32(230, 230, 230, 255);
    // One bar with its min-max whisker between `top` and `bottom`.
    auto bar = [&](std::string_view backend, int64_t med, int64_t lo, int64_t hi, float top, float bottom,
                   bool hatched) {
        const ImVec2 a{bx, top}, b{std::max(x_of(med), bx + 2.0f), bottom};
        if (hatched)
            draw_hatched_bar(dl, a, b, backend_color(backend, 0.95f));
        else
            dl->AddRectFilled(a, b, backend_color(backend, 0.85f), 2.0f);
        const float mid = (top + bottom) * 0.5f, tick = (bottom - top) * 0.25f;
        dl->AddLine({x_of(lo), mid}, {x_of(hi), mid}, wc, 1.5f);
        dl->AddLine({x_of(lo), top + tick}, {x_of(lo), bottom - tick}, wc, 1.5f);
        dl->AddLine({x_of(hi), top + tick}, {x_of(hi), bottom - tick}, wc, 1.5f);
    };
    // The other machine's bar in the lower half of a row, or why there is none.
    auto other_bar = [&](std::string_view backend, float y) {
        const core::ImportedBackend* b = other->find(backend);
        const float top = y + double_h * 0.52f, bottom = y + double_h * 0.92f;
        const float ty = (top + bottom - lh) * 0.5f;
        if (!b || !b->ran) {
            dl->AddText({bx, ty}, kGrey, (other_name(*other) + (b ? ": not run there" : ": not listed there")).c_str());
            return;
        }
        bar(backend, b->median_ns, b->min_ns, b->max_ns, top, bottom, true);
        // No speed-up: it would divide one computer's time by another's.
        const std::string value = other_value_prefix(*other) + core::format_duration(b->median_ns);
        dl->AddText({bx + bar_w + 8.0f, ty}, text_c, value.c_str());
    };
    float y = p0.y;
    float row_h = single_h;
    for (std::size_t i = 0; i < rows.size(); y += row_h, ++i) {
        const auto& r = *rows[i].report;
        const bool two = two_bars(r);
        row_h = two ? double_h : single_h;
        const float top = y + row_h * (two ? 0.08f : 0.18f), bottom = y + row_h * (two ? 0.48f : 0.82f);
        const float ty = two ? (top + bottom - lh) * 0.5f : y + (row_h - lh) * 0.5f;
        dl->AddText({p0.x, y + (row_h - lh) * 0.5f}, r.ran ? text_c : kGrey, rows[i].label.c_str());
        if (two) other_bar(r.backend, y);
        if (const core::ImportedBackend* b = stand_in(r)) {
            bar(r.backend, b->median_ns, b->min_ns, b->max_ns, top, bottom, true);
            const std::string value = other_value_prefix(*other) + core::format_duration(b->median_ns);
            dl->AddText({bx + bar_w + 8.0f, ty}, text_c, value.c_str());
            if (hovered && mouse_y >= y && mouse_y < y + row_h)
                tooltip_if(true, "Not measured on this computer (" + rows[i].why + "): hatched, " +
                                     other_machine_text(*other) + ".");
            continue;
        }
        if (!r.ran) {
            // One line per reason; the whole reason is in the tooltip and the Devices panel.
            const std::string full = "not run: " + (r.availability.ok ? r.error : r.availability.reason);
            // A shared row's names may be wider than the label column: its line starts after them.
            const std::string& why = rows[i].why;
            const float wx = std::max(bx, p0.x + ImGui::CalcTextSize(rows[i].label.c_str()).x + 10.0f);
            const std::string shown = fit_line(why, std::max(p0.x + width - wx, 40.0f));
            dl->AddText({wx, ty}, kGrey, shown.c_str());
            tooltip_if(hovered && shown != full && mouse_y >= y && mouse_y < y + row_h, full);
            continue;
        }
        if (!core::kind_is_timed(r.kind)) {
            // No bar: the simulator's time would read as a GPU speed. Its verdict and how long the
            // simulation took, labelled as such.
            const std::string text = simulated_time_text(r);
            const std::string shown = fit_line(text, why_w);
            dl->AddText({bx, ty}, kGrey, shown.c_str());
            tooltip_if(hovered && mouse_y >= y && mouse_y < y + row_h,
                       text + "\nEvery CUDA thread of the real kernel ran as a fiber on this CPU; the time says how "
                              "fast the simulation was, nothing about a GPU.");
            continue;
        }
        // Whisker from the fastest to the slowest sample: the spread is part of the answer.
        bar(r.backend, r.total.median_ns, r.total.min_ns, r.total.max_ns, top, bottom, false);
        std::string value = core::format_duration(r.total.median_ns);
        double sp = speedup_vs_scalar(run, r);
        if (sp > 0.0 && r.backend != "cpu-scalar") value += "  (" + core::format_ratio(sp) + ")";
        if (compact) value += share_of_limit(r);
        dl->AddText({bx + bar_w + 8.0f, ty}, text_c, value.c_str());
        if (compact && !r.check.pass) {
            // The check's failure stays in sight; a match is the table's (one click away).
            const float vx = bx + bar_w + 8.0f + ImGui::CalcTextSize(value.c_str()).x + lh * 0.5f;
            dl->AddText({vx, ty}, ImGui::GetColorU32(kErrorColour), "MISMATCH");
        }
        if (compact && hovered && mouse_y >= y && mouse_y < y + row_h)
            tooltip_if(true,
                       r.backend + ": median " + core::format_duration(r.total.median_ns) + " (" +
                           core::format_duration(r.total.min_ns) + " - " + core::format_duration(r.total.max_ns) + "), " +
                           core::format_gbps(r.gbps) +
                           (r.limit.ok ? " against " + core::format_gbps(r.limit.gbps) + " " + r.limit.name : std::string()) +
                           "\nchecked against cpu-scalar: " + r.check.verdict);
    }
    for (const core::ImportedBackend* b : extra) {
        dl->AddText({p0.x, y + (double_h - lh) * 0.5f}, kGrey, b->backend.c_str());
        dl->AddText({bx, y + double_h * 0.28f - lh * 0.5f}, kGrey, "this machine: no such backend");
        other_bar(b->backend, y);
        y += double_h;
    }
}

// [SECTION] comparison with another machine

std::string this_machine_label() {
    const auto& g = gpu::probe_now();
    return core::machine_label(core::host_machine().cpu_model, g.device_ok ? g.name : std::string());
}

std::string comparison_mismatch(const core::ActivationRun& run, const core::ImportedRun& other) {
    const std::string op = run.op.label();
    const std::string elements = core::format_pow2(run.input.size());
    if (op == other.op && elements == other.elements) return "";
    return "not the same measurement: this machine ran " + op + " on " + elements + " elements, the " + other_name(other) + " " +
           other.op + " on " + other.elements + " elements";
}

std::vector<std::string> comparison_caption_lines(const core::ActivationRun& run, const core::ImportedRun& other) {
    std::vector<std::string> lines;
    // One line each: together they are wider than the caption with long CPU names.
    lines.push_back(this_machine_text());
    lines.push_back(other_machine_text(other));
    const std::string mismatch = comparison_mismatch(run, other);
    if (other.estimate) {
        lines.push_back("GPU estimate's bar (outlined, hatched): our kernel's time for " + other.op + " on " +
                        other.elements + " elements, copies included, from the data's bytes and " + other.gpu +
                        "'s published figures by a model (core/gpu_model/gpu_estimate.h)");
        return lines;
    }
    lines.push_back(mismatch.empty() ? other_name(other) + "'s bars (outlined, hatched) measured " + other.op + " on " +
                                           other.elements + " elements with gpulab " + other.version + ", from " +
                                           std::filesystem::path(other.path).filename().string()
                                     : mismatch);
    return lines;
}

// [SECTION] throughput table

void draw_throughput_table(const core::ActivationRun& run) {
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_SizingStretchProp;
    // On a narrow panel (a projector's large text: about 48 characters wide at 1.5x on 1080p) the
    // median column goes: the bars above show each median and its spread, and without it the
    // throughput cells keep to one line, so the table fits the slide instead of scrolling.
    const bool with_median = ImGui::GetContentRegionAvail().x >= ImGui::GetFontSize() * 56.0f;
    if (!ImGui::BeginTable("##throughput", with_median ? 4 : 3, flags)) return;
    ImGui::TableSetupColumn("backend", ImGuiTableColumnFlags_WidthFixed);
    if (with_median) ImGui::TableSetupColumn("median (min - max)", ImGuiTableColumnFlags_WidthFixed);
    // Throughput gets the room: the verdict is cut to one line with its detail in a tooltip.
    ImGui::TableSetupColumn("throughput vs measured limit", ImGuiTableColumnFlags_WidthStretch, 1.5f);
    ImGui::TableSetupColumn("check vs cpu-scalar", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    // Backends that did not run are listed with their reason in the bar chart above.
    for (const auto& r : run.reports) {
        if (!r.ran) continue;
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(backend_color(r.backend)), "%s", r.backend.c_str());
        ImGui::TableNextColumn();  // the median's column, or the throughput's without it
        if (!core::kind_is_timed(r.kind)) {
            // cuda-sim: one run, its time labelled; no throughput, since it would read as a GPU's.
            if (with_median) {
                ImGui::TextColored(kMuted, "%s simulated", core::format_duration(r.total.median_ns).c_str());
                hover_tip("How long the CPU took to simulate every CUDA thread of the kernel: not a GPU speed.");
                ImGui::TableNextColumn();
            }
            const std::string model = estimated_gpu_floor_line(r.moved_bytes, r.unique_bytes);
            const std::string text = model.empty() ? "none: the CUDA kernel, simulated on the CPU" : model;
            // One line, as the other rows: wrapped it took three and pushed the table off the panel
            // at 1600x900. The whole line is in the tooltip.
            const std::string shown = fit_line(text, ImGui::GetContentRegionAvail().x);
            ImGui::TextColored(kMuted, "%s", shown.c_str());
            hover_tip((text + "\n\nRequested: counted from the addresses the simulated kernel used, every 32-byte "
                              "sector its warps touched. The floor uses only the data's own bytes (input and output, "
                              "each once): a GPU cannot move them faster than its memory bandwidth allows. A lower "
                              "bound for a memory-bound kernel, not a prediction and not a measurement.")
                          .c_str());
            ImGui::TableNextColumn();
            draw_verdict(r);
            continue;
        }
        if (with_median) {
            if (r.ran)
                ImGui::Text("%s (%s - %s)", core::format_duration(r.total.median_ns).c_str(),
                            core::format_duration(r.total.min_ns).c_str(), core::format_duration(r.total.max_ns).c_str());
            else
                ImGui::TextColored(kMuted, "-");
            ImGui::TableNextColumn();
        }
        if (r.ran) {
            std::string t = core::format_gbps(r.gbps);
            if (r.limit.ok && r.limit.gbps > 0.0) {
                char pct[32];
                // "41.2 GB/s = 104 % of 39.8 GB/s copy (...)": the limit's figure right after "of", so the
                // two GB/s values read as a ratio even when the limit's name wraps onto a second line.
                std::snprintf(pct, sizeof pct, " = %.0f %% of ", 100.0 * r.gbps / r.limit.gbps);
                t += pct + core::format_gbps(r.limit.gbps) + " " + r.limit.name;
            } else if (!r.limit.error.empty()) {
                t += " (limit: " + r.limit.error + ")";
            }
            ImGui::TextWrapped("%s", t.c_str());
            // Nothing streams much faster than a copy of the same bytes: well above 100 % the copy was
            // measured while something else used the memory bus, and the percentage means little.
            if (r.limit.ok && r.limit.gbps > 0.0 && r.gbps > 1.3 * r.limit.gbps) {
                // Wrapped: on a busy machine this line comes and goes, and a narrow cell must not cut it.
                ImGui::PushTextWrapPos(0.0f);
                ImGui::TextColored(kAccentColour, "copy limit measured low (busy machine?): run again");
                ImGui::PopTextWrapPos();
                hover_tip(
                    "The copy that sets the limit ran slower than this backend's own pass over the same bytes, "
                    "which a quiet machine does not do. Something else was probably using the memory or the "
                    "cores while the copy was timed. Run the measurement again when the machine is idle.");
            }
            if (r.kind == core::BackendKind::Gpu && r.total.median_ns > 0) {
                // Same line when it fits: the host<->device copies are the GPU's hidden cost.
                const std::string copies = "with copies: " + core::format_gbps(r.gbps_with_transfers);
                ImGui::SameLine();
                if (ImGui::CalcTextSize(copies.c_str()).x > ImGui::GetContentRegionAvail().x) ImGui::NewLine();
                ImGui::TextColored(kMuted, "%s", copies.c_str());
            }
        } else {
            ImGui::TextColored(kMuted, "-");
        }
        ImGui::TableNextColumn();
        draw_verdict(r);
    }
    ImGui::EndTable();
}

namespace {

// Two swatches naming the machines, and in red what differs when the runs are not the same
// measurement: never a silent comparison of different sizes.
void draw_comparison_legend(const core::ActivationRun& run, const core::ImportedRun& other, float width, bool compact) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    const ImU32 c = IM_COL32(210, 210, 210, 255);
    // Compact (the window): a recording or an estimate shares one line with "this machine", which
    // the status bar names; another machine keeps a line each, as both names matter there.
    const std::string theirs = other_machine_text(other);
    const bool one_line = compact && !other.recorded_source.empty() &&
                          lh * 5.2f + ImGui::CalcTextSize("this machine").x + ImGui::CalcTextSize(theirs.c_str()).x <= width;
    const std::string mine = one_line ? "this machine" : "this machine: " + this_machine_label();
    for (int i = 0; i < 2; ++i) {
        if (i == 1 && one_line) ImGui::SameLine(0.0f, lh * 1.2f);
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const ImVec2 a{p.x, p.y + lh * 0.15f}, b{p.x + lh * 1.6f, p.y + lh * 0.85f};
        if (i == 0)
            dl->AddRectFilled(a, b, c, 2.0f);
        else
            draw_hatched_bar(dl, a, b, c);
        ImGui::Dummy({lh * 1.8f, lh});
        ImGui::SameLine();
        const std::string& text = i == 0 ? mine : theirs;
        const std::string shown = i == 1 && one_line ? text : fit_line(text, std::max(width - lh * 2.0f, 40.0f));
        ImGui::TextUnformatted(shown.c_str());
        tooltip_if(shown != text && ImGui::IsItemHovered(), text + (i == 1 ? "\nfrom " + other.path : ""));
    }
    const std::string mismatch = comparison_mismatch(run, other);
    if (!mismatch.empty()) {
        ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
        ImGui::TextColored(kErrorColour, "%s", mismatch.c_str());
        ImGui::PopTextWrapPos();
    }
}

}  // namespace

void draw_timing_panel(const core::ActivationRun* run, const SampleHistory& history, float plot_height,
                       const core::ImportedRun* other, bool compact, bool show_table) {
    const float w = ImGui::GetContentRegionAvail().x;
    if (plot_height > 0.0f) draw_history_plot(history, {w, plot_height});  // 0: no room for it
    if (!run) return;
    if (!run->ok) {
        text_status(Status::Error, run->error.c_str());
        return;
    }
    if (!compact) {
        ImGui::Spacing();
        ImGui::PushTextWrapPos(0.0f);  // one line at 1x; wraps at larger UI scales instead of running off
        ImGui::TextColored(kMuted, "%s", kMedianBarsHowToRead);
        ImGui::PopTextWrapPos();
    }
    if (other) draw_comparison_legend(*run, *other, w, compact);
    if (compact && !show_table) {
        // A laptop's panel holds the bars or the table: the bars carry each median, its share of the
        // copy speed and a failed check; the table has every figure, a click away.
        draw_median_bars(*run, w, other, true);
        return;
    }
    if (!compact) {
        draw_median_bars(*run, w, other);
        ImGui::Spacing();
    }
    draw_throughput_table(*run);
}

}  // namespace gpulab::app
