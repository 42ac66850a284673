// Sweep plots on ImDrawList: see sweep_plot.h. Both axes are logarithmic (x in powers of two,
// y in decades) because the sweep spans seven orders of magnitude in size and time: on linear
// axes every small size would sit on top of zero, which is exactly where the lesson happens.
#include "sweep_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "views/compare_view.h"
#include "views/export.h"
#include "measure/format.h"
#include "gpu_model/gpu_model.h"
#include "gpu_backends.h"
#include "measure/machine_info.h"
#include "views/timing_plot.h"
#include "widgets/presenter_palette.h"

namespace gpulab::app {

namespace {

constexpr ImU32 kGrid = IM_COL32(60, 62, 70, 255);
constexpr ImU32 kAxisText = IM_COL32(160, 160, 165, 255);
constexpr ImU32 kBackground = IM_COL32(25, 27, 32, 255);
constexpr ImU32 kBorder = IM_COL32(90, 90, 90, 255);
constexpr ImU32 kUploadColour = IM_COL32(90, 150, 235, 255);
constexpr ImU32 kKernelColour = IM_COL32(80, 200, 110, 255);
constexpr ImU32 kDownloadColour = IM_COL32(235, 150, 70, 255);
constexpr ImU32 kLaunchColour = IM_COL32(230, 90, 200, 255);

// Log-log mapping from (elements, value) to screen inside the rectangle a0..a1.
struct LogAxes {
    ImVec2 a0, a1;
    double x_lo = 0, x_hi = 1;  // log2 of elements
    double y_lo = 0, y_hi = 1;  // log10 of the value
    float top = 0;              // top edge of the frame: the legend starts here
    float x(double elements) const {
        const double t = (std::log2(elements) - x_lo) / std::max(x_hi - x_lo, 1e-9);
        return a0.x + static_cast<float>(t) * (a1.x - a0.x);
    }
    float y(double value) const {
        const double t = (std::log10(std::max(value, 1e-30)) - y_lo) / std::max(y_hi - y_lo, 1e-9);
        return a1.y - static_cast<float>(t) * (a1.y - a0.y);
    }
};

// One curve: a value (and optional spread) per size index; nullopt where the backend did not run.
struct Curve {
    std::string label;
    ImU32 colour = 0;
    bool dashed = false;
    bool faint = false;
    std::vector<std::optional<double>> mid, lo, hi;
    bool other = false;  // legend only: the other machine's thin lines with hollow dots
    // The backend's own shape at every size, filled on the solid line, hollow on the dashed one, so
    // crossing curves stay apart without colour (presenter_palette.h).
    Marker marker = Marker::Circle;
};

// Another machine's medians for one backend at its own sizes (core/compare/compare_import.h), drawn
// thinner and lighter with hollow dots over this machine's curves in the same backend colour.
struct OtherCurve {
    ImU32 colour;
    std::vector<std::pair<double, double>> points;  // (elements, value)
};

std::string pow2_label(int e) { return "2^" + std::to_string(e); }

// Right edge of the frame around the axes (see begin_plot).
float p_right(const LogAxes& ax) { return ax.a1.x + ImGui::CalcTextSize("2^00").x * 0.6f + 4.0f; }

void dashed_line(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 c, float thickness, float dash) {
    const float dx = b.x - a.x, dy = b.y - a.y;
    const float len = std::sqrt(dx * dx + dy * dy);
    if (len <= 0.0f) return;
    for (float s = 0.0f; s < len; s += 2.0f * dash) {
        const float e = std::min(s + dash, len);
        dl->AddLine({a.x + dx * s / len, a.y + dy * s / len}, {a.x + dx * e / len, a.y + dy * e / len}, c, thickness);
    }
}

int legend_rows(const std::vector<Curve>& curves, float x0, float x1);

// Frame, background and axis area; returns the axes with the x range set from the sizes (and the
// other machine's, when it measured further) and room at the top for the legend's rows.
LogAxes begin_plot(const char* id, const core::SweepResult& r, ImVec2 size, const std::string& widest_y_label,
                   const std::vector<Curve>& legend, const std::vector<OtherCurve>& others) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton(id, {std::max(size.x, 1.0f), std::max(size.y, 1.0f)});
    const ImVec2 p1{p0.x + size.x, p0.y + size.y};
    dl->AddRectFilled(p0, p1, kBackground, 3.0f);
    dl->AddRect(p0, p1, kBorder, 3.0f);
    const float lh = ImGui::GetTextLineHeight();
    LogAxes ax;
    ax.top = p0.y;
    ax.a0 = {p0.x + ImGui::CalcTextSize(widest_y_label.c_str()).x + 12.0f, p0.y + lh * 1.6f};
    // Room on the right for half of the last size label, centred under its grid line.
    ax.a1 = {p1.x - ImGui::CalcTextSize("2^00").x * 0.6f - 4.0f, p1.y - lh * 2.4f};
    ax.a0.y += lh * static_cast<float>(std::max(legend_rows(legend, ax.a0.x, ax.a1.x) - 1, 0));
    bool any = false;
    auto widen = [&](double elements) {
        const double e = std::log2(std::max(elements, 1.0));
        ax.x_lo = any ? std::min(ax.x_lo, e) : e;
        ax.x_hi = any ? std::max(ax.x_hi, e) : e;
        any = true;
    };
    for (int64_t n : r.plan.sizes) widen(static_cast<double>(n));
    for (const OtherCurve& o : others)
        for (const auto& p : o.points) widen(p.first);
    if (any && ax.x_hi - ax.x_lo < 1.0) ax.x_hi = ax.x_lo + 1.0;
    return ax;
}

// Grid, decade labels on y (formatted by `label`), power-of-two labels on x and the x title.
template <typename LabelFn>
void draw_axes(const LogAxes& ax, LabelFn label, const char* x_title) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    for (double e = std::ceil(ax.y_lo - 1e-9); e <= ax.y_hi + 1e-9; e += 1.0) {
        const float y = ax.y(std::pow(10.0, e));
        dl->AddLine({ax.a0.x, y}, {ax.a1.x, y}, kGrid);
        const std::string t = label(std::pow(10.0, e));
        const float tw = ImGui::CalcTextSize(t.c_str()).x;
        dl->AddText({ax.a0.x - tw - 6.0f, y - lh * 0.5f}, kAxisText, t.c_str());
    }
    // Every power of two gets a grid line; labels skip some when they would touch.
    const int e0 = static_cast<int>(std::lround(ax.x_lo)), e1 = static_cast<int>(std::lround(ax.x_hi));
    const float per_exp = (ax.a1.x - ax.a0.x) / static_cast<float>(std::max(e1 - e0, 1));
    const float label_w = ImGui::CalcTextSize("2^00").x * 1.4f;
    const int every = std::max(1, static_cast<int>(std::ceil(label_w / std::max(per_exp, 1.0f))));
    for (int e = e0; e <= e1; ++e) {
        const float x = ax.x(std::ldexp(1.0, e));
        dl->AddLine({x, ax.a0.y}, {x, ax.a1.y}, (e - e0) % every == 0 ? kGrid : IM_COL32(40, 42, 48, 255));
        if ((e - e0) % every != 0) continue;
        const std::string t = pow2_label(e);
        const float tw = ImGui::CalcTextSize(t.c_str()).x;
        dl->AddText({x - tw * 0.5f, ax.a1.y + 3.0f}, kAxisText, t.c_str());
    }
    dl->AddRect(ax.a0, ax.a1, IM_COL32(100, 100, 105, 255));
    const float tw = ImGui::CalcTextSize(x_title).x;
    dl->AddText({(ax.a0.x + ax.a1.x - tw) * 0.5f, ax.a1.y + lh * 1.25f}, kAxisText, x_title);
}

void draw_curves(const LogAxes& ax, const core::SweepResult& r, const std::vector<Curve>& curves) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (const Curve& c : curves) {
        const float alpha = c.faint ? 0.35f : 1.0f;
        const ImU32 col = (c.colour & 0x00FFFFFFu) | (static_cast<ImU32>(255 * alpha) << 24);
        const ImU32 band = (c.colour & 0x00FFFFFFu) | (static_cast<ImU32>(255 * 0.16f * alpha) << 24);
        // The spread as one trapezoid per segment: each is convex, so AddConvexPolyFilled is exact.
        for (std::size_t i = 0; i + 1 < r.plan.sizes.size(); ++i) {
            if (c.lo.empty() || !c.lo[i] || !c.hi[i] || !c.lo[i + 1] || !c.hi[i + 1]) continue;
            const double n0 = static_cast<double>(r.plan.sizes[i]), n1 = static_cast<double>(r.plan.sizes[i + 1]);
            const ImVec2 q[4] = {{ax.x(n0), ax.y(*c.hi[i])},
                                 {ax.x(n1), ax.y(*c.hi[i + 1])},
                                 {ax.x(n1), ax.y(*c.lo[i + 1])},
                                 {ax.x(n0), ax.y(*c.lo[i])}};
            dl->AddConvexPolyFilled(q, 4, band);
        }
        for (std::size_t i = 0; i < r.plan.sizes.size(); ++i) {
            if (!c.mid[i]) continue;
            const ImVec2 p{ax.x(static_cast<double>(r.plan.sizes[i])), ax.y(*c.mid[i])};
            if (i + 1 < r.plan.sizes.size() && c.mid[i + 1]) {
                const ImVec2 q{ax.x(static_cast<double>(r.plan.sizes[i + 1])), ax.y(*c.mid[i + 1])};
                if (c.dashed)
                    dashed_line(dl, p, q, col, 2.0f, 6.0f);
                else
                    dl->AddLine(p, q, col, 2.2f);
            }
            draw_marker(dl, p, c.dashed ? 3.4f : 3.6f, c.marker, col, !c.dashed);
        }
    }
}

// A legend label cut with "..." to fit a row of `room` pixels with its swatch (the other machine's
// label can be longer than a narrow Timing window; the lines above the plot name it in full).
std::string legend_label(const Curve& c, float room) {
    const float lh = ImGui::GetTextLineHeight();
    const float max_w = std::max(room - lh * 2.6f, lh * 4.0f);
    if (ImGui::CalcTextSize(c.label.c_str()).x <= max_w) return c.label;
    std::string t = c.label;
    while (!t.empty() && ImGui::CalcTextSize((t + "...").c_str()).x > max_w) t.pop_back();
    return t + "...";
}

int legend_rows(const std::vector<Curve>& curves, float x0, float x1) {
    const float lh = ImGui::GetTextLineHeight();
    float x = x0;
    int rows = 1;
    for (const Curve& c : curves) {
        const float w = lh * 1.6f + ImGui::CalcTextSize(legend_label(c, x1 - x0).c_str()).x + lh;
        if (x + w > x1 && x > x0) {
            x = x0;
            ++rows;
        }
        x += w;
    }
    return rows;
}

// Legend in one or more rows along the top edge of the plot (begin_plot left room for them).
void draw_legend(const LogAxes& ax, const std::vector<Curve>& curves, float top) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    float x = ax.a0.x, y = top;
    for (const Curve& c : curves) {
        const std::string label = legend_label(c, ax.a1.x - ax.a0.x);
        const float w = lh * 1.6f + ImGui::CalcTextSize(label.c_str()).x + lh;
        if (x + w > ax.a1.x && x > ax.a0.x) {
            x = ax.a0.x;
            y += lh;
        }
        const ImU32 col = c.faint ? ((c.colour & 0x00FFFFFFu) | (90u << 24)) : c.colour;
        const ImVec2 a{x, y + lh * 0.55f}, b{x + lh * 1.3f, y + lh * 0.55f};
        if (c.other) {
            dl->AddLine(a, b, (col & 0x00FFFFFFu) | (150u << 24), 1.2f);
            dl->AddCircle({(a.x + b.x) * 0.5f, a.y}, 3.2f, col, 0, 1.3f);
        } else {
            if (c.dashed)
                dashed_line(ImGui::GetWindowDrawList(), a, b, col, 2.0f, lh * 0.3f);
            else
                dl->AddLine(a, b, col, 2.5f);
            draw_marker(dl, {(a.x + b.x) * 0.5f, a.y}, c.dashed ? 3.4f : 3.6f, c.marker, col, !c.dashed);
        }
        dl->AddText({x + lh * 1.6f, y}, c.faint ? kAxisText : IM_COL32(225, 225, 228, 255), label.c_str());
        x += w;
    }
}

// Text on a dark backing in the lower right of the plot area (`row` 0 is the lowest), wrapped to
// 60 % of its width: time grows with size, so that corner is where the curves are not.
void plot_note(const LogAxes& ax, const std::string& text, ImU32 colour, int row = 0) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float wrap = (ax.a1.x - ax.a0.x) * 0.6f;
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str(), nullptr, false, wrap);
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 p{ax.a1.x - ts.x - 10.0f, ax.a1.y - ts.y - 8.0f - static_cast<float>(row) * lh * 2.5f};
    dl->AddRectFilled({p.x - 6, p.y - 4}, {p.x + ts.x + 6, p.y + ts.y + 4}, IM_COL32(20, 20, 24, 225), 4.0f);
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), p, colour, text.c_str(), nullptr, wrap);
}

bool any_ran(const core::SweepResult& r, std::size_t b) {
    return std::any_of(r.cells[b].begin(), r.cells[b].end(), [](const core::SweepCell& c) { return c.ran; });
}

// Time curves: every CPU backend, and per GPU backend the round trip and the kernel alone.
std::vector<Curve> time_curves(const core::SweepResult& r, bool transfers) {
    std::vector<Curve> out;
    for (std::size_t b = 0; b < r.backends.size(); ++b) {
        if (!any_ran(r, b)) continue;
        const bool gpu = r.kinds[b] == core::BackendKind::Gpu;
        Curve c{gpu ? r.backends[b] + " (copies included)" : r.backends[b],
                backend_color(r.backends[b]),
                false,
                gpu && !transfers,
                {},
                {},
                {}};
        Curve k{
            r.backends[b] + " resident: kernel only", backend_color(r.backends[b]), true, gpu && transfers, {}, {}, {}};
        for (const core::SweepCell& cell : r.cells[b]) {
            const bool ok = cell.ran && cell.total.median_ns > 0;
            c.mid.push_back(ok ? std::optional<double>(static_cast<double>(cell.total.median_ns)) : std::nullopt);
            c.lo.push_back(ok ? std::optional<double>(std::max<double>(static_cast<double>(cell.total.p25_ns), 1.0))
                              : std::nullopt);
            c.hi.push_back(ok ? std::optional<double>(static_cast<double>(cell.total.p75_ns)) : std::nullopt);
            const bool kok = cell.ran && cell.compute.median_ns > 0;
            k.mid.push_back(kok ? std::optional<double>(static_cast<double>(cell.compute.median_ns)) : std::nullopt);
        }
        c.marker = k.marker = backend_marker(r.backends[b]);
        out.push_back(std::move(c));
        if (gpu) out.push_back(std::move(k));
    }
    return out;
}

void value_range(const std::vector<Curve>& curves, double& lo, double& hi) {
    lo = 1e300;
    hi = 0;
    for (const Curve& c : curves) {
        for (std::size_t i = 0; i < c.mid.size(); ++i) {
            for (const auto* v : {&c.mid[i], c.lo.empty() ? nullptr : &c.lo[i], c.hi.empty() ? nullptr : &c.hi[i]}) {
                if (!v || !*v || **v <= 0) continue;
                lo = std::min(lo, **v);
                hi = std::max(hi, **v);
            }
        }
    }
    if (hi <= 0) {
        lo = 1e2;
        hi = 1e6;
    }
}

// The other machine's series: its median per size, or elements per second when `rate`; the total
// (copies included) when `transfers`, else the kernel alone where the file gave it (a CPU backend's
// total is its compute).
std::vector<OtherCurve> other_curves(const core::ImportedSweep* other, bool rate, bool transfers) {
    std::vector<OtherCurve> out;
    if (!other) return out;
    for (const core::ImportedSweepSeries& s : other->series) {
        OtherCurve c{backend_color(s.backend), {}};
        for (std::size_t i = 0; i < s.elements.size(); ++i) {
            const bool resident = !transfers && i < s.compute_ns.size() && s.compute_ns[i] > 0;
            const int64_t ns = resident ? s.compute_ns[i] : s.median_ns[i];
            if (ns <= 0) continue;
            const double n = static_cast<double>(s.elements[i]), t = static_cast<double>(ns);
            c.points.emplace_back(n, rate ? n / t * 1e9 : t);
        }
        if (!c.points.empty()) out.push_back(std::move(c));
    }
    return out;
}

void widen_range(const std::vector<OtherCurve>& others, double& lo, double& hi) {
    for (const OtherCurve& o : others) {
        for (const auto& p : o.points) {
            lo = std::min(lo, p.second);
            hi = std::max(hi, p.second);
        }
    }
}

void draw_other_curves(const LogAxes& ax, const std::vector<OtherCurve>& others) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (const OtherCurve& o : others) {
        const ImU32 line = (o.colour & 0x00FFFFFFu) | (150u << 24);
        for (std::size_t i = 0; i < o.points.size(); ++i) {
            const ImVec2 p{ax.x(o.points[i].first), ax.y(o.points[i].second)};
            if (i + 1 < o.points.size())
                dl->AddLine(p, {ax.x(o.points[i + 1].first), ax.y(o.points[i + 1].second)}, line, 1.2f);
            dl->AddCircle(p, 3.2f, o.colour, 0, 1.3f);
        }
    }
}

// The legend's entries: this machine's curves, then one naming the other machine.
std::vector<Curve> legend_of(const std::vector<Curve>& curves, const core::ImportedSweep* other) {
    std::vector<Curve> out = curves;
    if (other) {
        Curve c;
        c.label = other_machine_text(*other);
        c.colour = IM_COL32(210, 210, 210, 255);
        c.other = true;
        out.push_back(std::move(c));
    }
    return out;
}

// A vertical guide at the hovered size and a tooltip with every curve's value there.
template <typename FormatFn>
void hover_readout(const LogAxes& ax, const core::SweepResult& r, const std::vector<Curve>& curves, FormatFn fmt) {
    if (!ImGui::IsItemHovered() || r.plan.sizes.empty()) return;
    const float mx = ImGui::GetIO().MousePos.x;
    std::size_t best = 0;
    float best_d = 1e30f;
    for (std::size_t i = 0; i < r.plan.sizes.size(); ++i) {
        const float d = std::fabs(ax.x(static_cast<double>(r.plan.sizes[i])) - mx);
        if (d < best_d) {
            best_d = d;
            best = i;
        }
    }
    const float x = ax.x(static_cast<double>(r.plan.sizes[best]));
    ImGui::GetWindowDrawList()->AddLine({x, ax.a0.y}, {x, ax.a1.y}, IM_COL32(255, 255, 255, 70), 1.0f);
    ImGui::BeginTooltip();
    ImGui::Text("%s = %s elements (%s per array)", core::format_pow2(r.plan.sizes[best]).c_str(),
                core::format_count(r.plan.sizes[best]).c_str(),
                core::format_bytes(static_cast<double>(r.plan.sizes[best]) * sizeof(float)).c_str());
    for (const Curve& c : curves) {
        if (!c.mid[best]) continue;
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(c.colour), "%s: %s", c.label.c_str(),
                           fmt(*c.mid[best], r.plan.sizes[best]).c_str());
    }
    ImGui::EndTooltip();
}

}  // namespace

std::string format_rate(double per_second) {
    const char* prefixes[] = {"", "k", "M", "G", "T", "P"};
    int p = 0;
    while (per_second >= 1000.0 && p < 5) {
        per_second /= 1000.0;
        ++p;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf,
                  per_second >= 100  ? "%.0f %s/s"
                  : per_second >= 10 ? "%.1f %s/s"
                                     : "%.2f %s/s",
                  per_second, prefixes[p]);
    return buf;
}

std::string gpu_missing_reason(const core::SweepResult& r) {
    std::string first_reason;
    for (std::size_t b = 0; b < r.backends.size(); ++b) {
        if (r.kinds[b] != core::BackendKind::Gpu) continue;
        if (any_ran(r, b)) return {};
        for (const auto& c : r.cells[b])
            if (!c.why_not.empty() && first_reason.empty()) first_reason = r.backends[b] + ": " + c.why_not;
    }
    const gpu::GpuProbe& g = gpu::probe();
    if (!g.compiled_in || !g.device_ok) return g.reason.empty() ? first_reason : g.reason;
    return first_reason.empty() ? "no GPU backend ran" : first_reason;
}

std::string crossover_text(const core::SweepResult& r, bool transfers) {
    const core::SweepCrossover x = core::sweep_crossover(r);
    if (x.gpu_backend.empty() || r.plan.sizes.empty()) return {};
    const std::optional<double>& n = transfers ? x.with_transfers : x.resident;
    const std::string mode = transfers ? " (copies included)" : " (data resident, kernel only)";
    if (!n) return "the GPU never wins up to " + core::format_pow2(r.plan.sizes.back()) + mode;
    char buf[160];
    std::snprintf(buf, sizeof buf, "the GPU wins above N = 2^%.1f (%s elements)%s", std::log2(*n),
                  core::format_count(static_cast<int64_t>(std::llround(*n))).c_str(), mode.c_str());
    return buf;
}

std::string gpu_missing_sentence(const core::SweepResult& r) {
    const std::string raw = gpu_missing_reason(r);
    const std::string plain = core::plain_gpu_reason(raw);
    return plain.empty() ? raw : plain;
}

core::SweepResult without_gpu_runs(const core::SweepResult& result) {
    core::SweepResult out = result;
    for (std::size_t b = 0; b < out.backends.size() && b < out.cells.size(); ++b)
        if (b < out.kinds.size() && out.kinds[b] == core::BackendKind::Gpu)
            for (core::SweepCell& c : out.cells[b]) c.ran = false;
    return out;
}

void draw_sweep_time_plot(const core::SweepResult& r, const SweepPlotOptions& o, ImVec2 size) {
    const std::vector<Curve> curves = time_curves(r, o.transfers);
    const std::vector<OtherCurve> others = other_curves(o.other, false, o.transfers);
    const std::vector<Curve> legend = legend_of(curves, o.other);
    double lo, hi;
    value_range(curves, lo, hi);
    widen_range(others, lo, hi);
    LogAxes ax = begin_plot("##sweep_time", r, size, "100 ms", legend, others);
    ax.y_lo = std::floor(std::log10(lo));
    ax.y_hi = std::max(std::ceil(std::log10(hi)), ax.y_lo + 1.0);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    const ImVec2 frame0{ax.a0.x, ax.top};
    const ImVec2 frame1{p_right(ax), ax.a1.y + lh * 2.4f};
    dl->PushClipRect({frame0.x - 200.0f, frame0.y}, frame1, true);
    draw_axes(
        ax, [](double ns) { return core::format_duration(static_cast<int64_t>(std::llround(ns))); },
        "elements per call (float32), log scale; lower is faster");
    dl->PushClipRect(ax.a0, ax.a1, true);
    if (o.marked_exp >= 0) {
        const float x = ax.x(std::ldexp(1.0, o.marked_exp));
        dashed_line(dl, {x, ax.a0.y}, {x, ax.a1.y}, IM_COL32(200, 200, 200, 110), 1.0f, 3.0f);
    }
    draw_other_curves(ax, others);
    draw_curves(ax, r, curves);
    // The crossover: a vertical line and its label; without a GPU, why there is no GPU line.
    const core::SweepCrossover x = core::sweep_crossover(r);
    const std::optional<double>& n = o.transfers ? x.with_transfers : x.resident;
    const std::string label = crossover_text(r, o.transfers);
    if (n) {
        const float px = ax.x(*n);
        dl->AddLine({px, ax.a0.y}, {px, ax.a1.y}, IM_COL32(255, 225, 90, 230), 2.0f);
        const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
        const float tx = std::clamp(px + 6.0f, ax.a0.x + 4.0f, ax.a1.x - ts.x - 4.0f);
        const float ty = ax.a1.y - ts.y * 2.6f;
        dl->AddRectFilled({tx - 3, ty - 2}, {tx + ts.x + 3, ty + ts.y + 2}, IM_COL32(20, 20, 24, 220), 3.0f);
        dl->AddText({tx, ty}, IM_COL32(255, 225, 90, 255), label.c_str());
    } else if (!label.empty()) {
        plot_note(ax, label, IM_COL32(255, 225, 90, 255), 1);
    }
    const std::string missing = gpu_missing_sentence(r);
    if (!o.gpu_hidden_note.empty()) {
        plot_note(ax, o.gpu_hidden_note, IM_COL32(200, 200, 200, 255));
    } else if (!missing.empty()) {
        // Plain words (the Devices panel has the driver's error); cuda-sim's time is no speed to plot.
        plot_note(ax, (o.other && !o.other->recorded_source.empty() ? "no GPU measured here (" + missing +
                                                                           "): the thin line is the " + other_name(*o.other)
                                                                     : "no GPU lines: " + missing),
                  IM_COL32(200, 200, 200, 255));
    }
    dl->PopClipRect();
    draw_legend(ax, legend, frame0.y + 2.0f);
    dl->PopClipRect();
    hover_readout(ax, r, curves,
                  [](double ns, int64_t) { return core::format_duration(static_cast<int64_t>(std::llround(ns))); });
}

void draw_sweep_throughput_plot(const core::SweepResult& r, const SweepPlotOptions& o, ImVec2 size) {
    // Rates from the same medians: elements / time. The band flips: p25 time is the p75 rate.
    std::vector<Curve> curves = time_curves(r, o.transfers);
    for (Curve& c : curves) {
        for (std::size_t i = 0; i < c.mid.size(); ++i) {
            const double n = static_cast<double>(r.plan.sizes[i]);
            auto rate = [n](const std::optional<double>& t) {
                return t && *t > 0 ? std::optional<double>(n / *t * 1e9) : std::nullopt;
            };
            const std::optional<double> lo = c.lo.empty() ? std::nullopt : rate(c.hi[i]);
            const std::optional<double> hi = c.lo.empty() ? std::nullopt : rate(c.lo[i]);
            c.mid[i] = rate(c.mid[i]);
            if (!c.lo.empty()) {
                c.lo[i] = lo;
                c.hi[i] = hi;
            }
        }
    }
    const std::vector<OtherCurve> others = other_curves(o.other, true, o.transfers);
    const std::vector<Curve> legend = legend_of(curves, o.other);
    double lo, hi;
    value_range(curves, lo, hi);
    widen_range(others, lo, hi);
    LogAxes ax = begin_plot("##sweep_rate", r, size, "100 G/s", legend, others);
    ax.y_lo = std::floor(std::log10(lo));
    ax.y_hi = std::max(std::ceil(std::log10(hi)), ax.y_lo + 1.0);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    dl->PushClipRect({ax.a0.x - 200.0f, ax.top}, {p_right(ax), ax.a1.y + lh * 2.4f}, true);
    draw_axes(
        ax, [](double v) { return format_rate(v); },
        "elements per call, log scale; higher is better (4 bytes in + 4 out per element)");
    dl->PushClipRect(ax.a0, ax.a1, true);
    draw_other_curves(ax, others);
    draw_curves(ax, r, curves);
    dl->PopClipRect();
    draw_legend(ax, legend, ax.top + 2.0f);
    dl->PopClipRect();
    hover_readout(ax, r, curves, [](double rate, int64_t) {
        return format_rate(rate) + " elements, " + core::format_gbps(rate * 8.0 / 1e9);
    });
}

void draw_phase_breakdown(const core::SweepResult& r, std::size_t i, const gpu::LaunchCosts& launch, float width) {
    if (i >= r.plan.sizes.size()) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    const float row_h = lh * 1.9f;
    float label_w = 0.0f;
    double max_ns = 1.0;
    for (std::size_t b = 0; b < r.backends.size(); ++b) {
        label_w = std::max(label_w, ImGui::CalcTextSize(r.backends[b].c_str()).x);
        const core::SweepCell& c = r.cells[b][i];
        if (!c.ran) continue;
        const double sum = r.kinds[b] == core::BackendKind::Gpu
                               ? static_cast<double>(c.upload.median_ns + c.compute.median_ns + c.download.median_ns)
                               : static_cast<double>(c.total.median_ns);
        max_ns = std::max(max_ns, sum);
    }
    label_w += lh;
    const float value_w = ImGui::CalcTextSize("= 000.0 ms").x + lh;
    const float bar_w = std::max(width - label_w - value_w, 60.0f);
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float total_h = row_h * static_cast<float>(r.backends.size());
    ImGui::InvisibleButton("##breakdown", {std::max(width, 1.0f), std::max(total_h, 1.0f)});
    auto seg = [&](float& x, float y, double ns, ImU32 col, const char* name) {
        const float w = static_cast<float>(ns / max_ns) * bar_w;
        if (w <= 0.0f) return;
        dl->AddRectFilled({x, y}, {x + std::max(w, 1.0f), y + lh * 1.1f}, col);
        const std::string t = std::string(name) + " " + core::format_duration(static_cast<int64_t>(ns));
        const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
        if (ts.x + 6.0f < w) dl->AddText({x + 3.0f, y + lh * 0.05f}, IM_COL32(15, 15, 18, 255), t.c_str());
        x += w;
    };
    float y = p0.y;
    for (std::size_t b = 0; b < r.backends.size(); ++b) {
        const core::SweepCell& c = r.cells[b][i];
        dl->AddText({p0.x, y + lh * 0.05f}, backend_color(r.backends[b]), r.backends[b].c_str());
        float x = p0.x + label_w;
        if (!c.ran) {
            std::string why = not_run_line(c.why_not);  // "no GPU here": the reason is said once, below
            const float room = width - label_w;
            while (!why.empty() && ImGui::CalcTextSize(why.c_str()).x > room) why.pop_back();
            dl->AddText({x, y + lh * 0.05f}, kAxisText, why.c_str());
            y += row_h;
            continue;
        }
        double sum;
        if (r.kinds[b] == core::BackendKind::Gpu) {
            sum = static_cast<double>(c.upload.median_ns + c.compute.median_ns + c.download.median_ns);
            const float kernel_x = x + static_cast<float>(static_cast<double>(c.upload.median_ns) / max_ns) * bar_w;
            seg(x, y, static_cast<double>(c.upload.median_ns), kUploadColour, "upload");
            seg(x, y, static_cast<double>(c.compute.median_ns), kKernelColour, "kernel");
            seg(x, y, static_cast<double>(c.download.median_ns), kDownloadColour, "download");
            if (launch.ok && launch.enqueue.median_ns > 0) {
                // Host enqueue overlaps the GPU timeline: a thin bar under the kernel, not a segment.
                const float w = std::max(static_cast<float>(launch.enqueue.median_ns / max_ns) * bar_w, 2.0f);
                const float ly = y + lh * 1.2f;
                dl->AddRectFilled({kernel_x, ly}, {kernel_x + w, ly + lh * 0.3f}, kLaunchColour);
            }
        } else {
            sum = static_cast<double>(c.total.median_ns);
            seg(x, y, sum, backend_color(r.backends[b], 0.85f), "compute");
        }
        const std::string t = "= " + core::format_duration(static_cast<int64_t>(sum));
        dl->AddText({p0.x + label_w + bar_w + lh * 0.5f, y + lh * 0.05f}, IM_COL32(230, 230, 230, 255), t.c_str());
        y += row_h;
    }
    // Key, with what each colour means.
    const char* names[] = {"upload (host to device)", "kernel", "download (device to host)", "CPU compute (its colour)",
                           "launch enqueue (host, overlaps)"};
    const ImU32 cols[] = {kUploadColour, kKernelColour, kDownloadColour, IM_COL32(200, 200, 200, 255), kLaunchColour};
    ImGui::Dummy({0, lh * 0.2f});
    float kx = ImGui::GetCursorScreenPos().x;
    const float ky = ImGui::GetCursorScreenPos().y;
    float line_y = ky;
    for (int k = 0; k < 5; ++k) {
        const float w = lh * 1.2f + ImGui::CalcTextSize(names[k]).x + lh;
        if (kx + w > p0.x + width && kx > p0.x) {
            kx = p0.x;
            line_y += lh * 1.2f;
        }
        dl->AddRectFilled({kx, line_y + lh * 0.25f}, {kx + lh * 0.8f, line_y + lh * 0.85f}, cols[k]);
        dl->AddText({kx + lh * 1.1f, line_y}, kAxisText, names[k]);
        kx += w;
    }
    ImGui::Dummy({width, line_y - ky + lh * 1.2f});
}

std::vector<std::string> sweep_caption_lines(const core::SweepResult& r, std::string_view lesson_title) {
    std::vector<std::string> lines = machine_caption_lines(lesson_title, r.started_unix_s);
    if (!r.plan.sizes.empty()) {
        int samples = 1 << 30;
        for (const auto& col : r.cells)
            for (const auto& c : col)
                if (c.ran) samples = std::min(samples, c.total.samples);
        if (samples == 1 << 30) samples = 0;
        lines.push_back("Op: " + std::string(core::activation_label(r.activation)) + " over " +
                        core::format_pow2(r.plan.sizes.front()) + " .. " + core::format_pow2(r.plan.sizes.back()) +
                        " float32 elements; each point the median of >= " + std::to_string(samples) +
                        " timed calls after warm-up, band p25..p75");
    }
    if (!r.plan.capped.empty()) lines.push_back("Left out: " + r.plan.capped);
    return lines;
}

}  // namespace gpulab::app
