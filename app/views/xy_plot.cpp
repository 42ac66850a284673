// See xy_plot.h.
#include "xy_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "timing_plot.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

std::string tick_label(float v, bool percent) {
    char buf[32];
    if (percent) std::snprintf(buf, sizeof buf, "%.0f %%", v * 100.0f);
    else if (std::fabs(v) >= 1000) std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (std::fabs(v) >= 10 || v == std::floor(v)) std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (std::fabs(v) >= 1) std::snprintf(buf, sizeof buf, "%.1f", v);
    else std::snprintf(buf, sizeof buf, "%.2g", v);
    return buf;
}

// Up to ~6 "nice" ticks in [lo, hi]: 1, 2 or 5 times a power of ten apart, or powers of ten on a log axis.
std::vector<float> ticks(float lo, float hi, bool log) {
    std::vector<float> t;
    if (log) {
        for (float p = std::pow(10.0f, std::floor(std::log10(lo))); p <= hi * 1.0001f; p *= 10.0f)
            if (p >= lo * 0.9999f) t.push_back(p);
        return t;
    }
    const float span = hi - lo;
    if (!(span > 0)) return {lo};
    const float raw = span / 5.0f;
    const float mag = std::pow(10.0f, std::floor(std::log10(raw)));
    const float step = raw / mag < 1.5f ? mag : raw / mag < 3.5f ? 2 * mag : raw / mag < 7.5f ? 5 * mag : 10 * mag;
    for (float v = std::ceil(lo / step) * step; v <= hi + step * 1e-3f; v += step) t.push_back(v);
    return t;
}

// Every other tick, as often as needed, until at most `room` are left: a plot squeezed to a few lines
// (the race's loss plot in presenter mode) otherwise prints its labels on top of each other.
std::vector<float> thin_ticks(std::vector<float> t, int room) {
    room = std::max(room, 2);
    while (static_cast<int>(t.size()) > room) {
        std::vector<float> kept;
        for (std::size_t i = 0; i < t.size(); i += 2) kept.push_back(t[i]);
        t.swap(kept);
    }
    return t;
}

}  // namespace

PlotSeries backend_series(const std::string& name, const std::string& backend, bool dots, float thickness) {
    PlotSeries s{name, backend_color(backend), {}, dots, thickness};
    s.marker = backend_marker(backend);
    s.backend = true;
    return s;
}

void draw_xy_plot(const XYPlot& plot, ImVec2 size) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float lh = ImGui::GetTextLineHeight();
    ImGui::Dummy(size);
    float x0 = plot.x_min, x1 = plot.x_max, y0 = plot.y_min, y1 = plot.y_max;
    const bool auto_x = x0 == x1, auto_y = y0 == y1;
    bool any = false;
    for (const auto& s : plot.series)
        for (const ImVec2& p : s.points) {
            if ((plot.log_x && p.x <= 0) || (plot.log_y && p.y <= 0) || !std::isfinite(p.x) || !std::isfinite(p.y)) continue;
            if (auto_x) x0 = any ? std::min(x0, p.x) : p.x, x1 = any ? std::max(x1, p.x) : p.x;
            if (auto_y) y0 = any ? std::min(y0, p.y) : p.y, y1 = any ? std::max(y1, p.y) : p.y;
            any = true;
        }
    if (plot.log_x) x0 = std::max(x0, 1e-9f), x1 = std::max(x1, x0 * 10.0f > x1 ? x0 * 10.0f : x1);
    if (plot.log_y) {
        if (auto_y) y0 = std::pow(10.0f, std::floor(std::log10(std::max(y0, 1e-9f)))), y1 = std::pow(10.0f, std::ceil(std::log10(std::max(y1, 1e-9f))));
        if (y1 <= y0) y1 = y0 * 10.0f;
    }
    if (!(x1 > x0)) x1 = x0 + 1.0f;
    if (!(y1 > y0)) y1 = y0 + 1.0f;
    if (auto_y && !plot.log_y) y0 = std::min(y0, 0.0f);
    if (auto_x && !plot.log_x) x0 = std::min(x0, 0.0f), x1 += (x1 - x0) * 0.03f;  // the last dot stays inside
    if (auto_x && plot.log_x) {  // the same on a log axis, at both ends (batch 1 and 1024 were cut in half)
        const float margin = std::pow(x1 / x0, 0.03f);
        x0 /= margin, x1 *= margin;
    }

    // The title's note beside the title when it fits, else wrapped on the lines under it (a laptop's
    // narrow plot cut it mid-word, issue 41); the plot area starts below whatever it takes.
    const float title_w = ImGui::CalcTextSize(plot.title.c_str()).x;
    const bool note_beside = plot.y_label.empty() || title_w + lh + ImGui::CalcTextSize(plot.y_label.c_str()).x <= size.x;
    const float note_h = note_beside ? 0.0f : ImGui::CalcTextSize(plot.y_label.c_str(), nullptr, false, size.x).y;
    // Plot area: room for y labels on the left, x labels and the axis title below, the title above.
    const ImVec2 a0{o.x + lh * 3.6f, o.y + lh * 1.4f + note_h};
    const ImVec2 a1{o.x + size.x - lh * 0.5f, o.y + size.y - lh * 2.4f};
    dl->AddRectFilled(a0, a1, IM_COL32(22, 24, 29, 255));
    dl->AddRect(a0, a1, IM_COL32(90, 90, 100, 255));
    dl->AddText({o.x, o.y}, ImGui::GetColorU32(ImGuiCol_Text), plot.title.c_str());
    auto fx = [&](float x) {
        const float t = plot.log_x ? (std::log10(x) - std::log10(x0)) / (std::log10(x1) - std::log10(x0)) : (x - x0) / (x1 - x0);
        return a0.x + t * (a1.x - a0.x);
    };
    auto fy = [&](float y) {
        const float t = plot.log_y ? (std::log10(y) - std::log10(y0)) / (std::log10(y1) - std::log10(y0)) : (y - y0) / (y1 - y0);
        return a1.y - t * (a1.y - a0.y);
    };
    const ImU32 grid = IM_COL32(60, 62, 70, 255), label = ImGui::GetColorU32(kMutedColour);
    for (float v : ticks(x0, x1, plot.log_x)) {
        const float x = fx(v);
        dl->AddLine({x, a0.y}, {x, a1.y}, grid);
        const std::string s = tick_label(v, false);
        dl->AddText({x - ImGui::CalcTextSize(s.c_str()).x / 2, a1.y + 2}, label, s.c_str());
    }
    for (float v : thin_ticks(ticks(y0, y1, plot.log_y), static_cast<int>((a1.y - a0.y) / (lh * 1.2f)) + 1)) {
        const float y = fy(v);
        dl->AddLine({a0.x, y}, {a1.x, y}, grid);
        const std::string s = tick_label(v, plot.y_percent);
        dl->AddText({a0.x - ImGui::CalcTextSize(s.c_str()).x - 4, y - lh / 2}, label, s.c_str());
    }
    const ImVec2 xs = ImGui::CalcTextSize(plot.x_label.c_str());
    dl->AddText({(a0.x + a1.x - xs.x) / 2, a1.y + lh * 1.1f}, label, plot.x_label.c_str());
    dl->PushClipRect(o, {o.x + size.x, o.y + size.y}, true);
    if (note_beside)
        dl->AddText({o.x + title_w + lh, o.y}, label, plot.y_label.c_str());
    else
        dl->AddText(ImGui::GetFont(), ImGui::GetFontSize(), {o.x, o.y + lh}, label, plot.y_label.c_str(), nullptr, size.x);
    dl->PopClipRect();

    dl->PushClipRect(a0, a1, true);
    std::size_t series_index = 0;
    for (const auto& s : plot.series) {
        std::vector<ImVec2> pts;
        for (const ImVec2& p : s.points) {
            if ((plot.log_x && p.x <= 0) || (plot.log_y && p.y <= 0) || !std::isfinite(p.x) || !std::isfinite(p.y)) continue;
            pts.push_back({fx(p.x), fy(p.y)});
        }
        if (pts.size() > 1) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), s.colour, ImDrawFlags_None, s.thickness);
        if (s.dots || pts.size() == 1) {
            for (const ImVec2& p : pts) draw_marker(dl, p, 3.6f, s.marker, s.colour);
        } else if (s.backend) {
            // About eight marks along the line, staggered per series so overlapping lines show each shape.
            const std::size_t every = std::max<std::size_t>(pts.size() / 8, 1);
            for (std::size_t k = (series_index * every / 3) % every; k < pts.size(); k += every)
                draw_marker(dl, pts[k], 4.0f, s.marker, s.colour);
        }
        ++series_index;
    }
    dl->PopClipRect();
    // Legend, top right inside the plot (or bottom right).
    int named = 0;
    for (const auto& s : plot.series) named += s.name.empty() ? 0 : 1;
    // One entry per line where they fit; in a plot too low for that, one line of entries side by side.
    const bool in_a_row = named * (lh + 3) + 8 > a1.y - a0.y;
    auto entry_width = [&](const PlotSeries& s) {
        return ImGui::CalcTextSize(s.name.c_str()).x + (s.backend ? lh * 2.1f : lh * 1.6f);
    };
    float row_x = a1.x + 4;  // in a row: the next entry's swatch; the last box ends where a column's would
    if (in_a_row) {
        for (const auto& s : plot.series)
            if (!s.name.empty()) row_x -= entry_width(s) + 4;
    }
    const int lines = in_a_row ? 1 : named;
    float y = plot.legend_bottom ? a1.y - 4 - lines * (lh + 3) : a0.y + 4;
    for (const auto& s : plot.series) {
        if (s.name.empty()) continue;
        const float w = entry_width(s);
        const float x = in_a_row ? row_x : a1.x - w;
        dl->AddRectFilled({x - 4, y}, {x + w - 2, y + lh + 2}, IM_COL32(25, 27, 32, 220));
        if (s.backend) {
            dl->AddLine({x, y + lh * 0.6f}, {x + lh * 1.1f, y + lh * 0.6f}, s.colour, 1.8f);
            draw_marker(dl, {x + lh * 0.55f, y + lh * 0.6f}, 3.6f, s.marker, s.colour);
        } else {
            dl->AddRectFilled({x, y + lh * 0.3f}, {x + lh * 0.6f, y + lh * 0.9f}, s.colour);
        }
        dl->AddText({x + (s.backend ? lh * 1.4f : lh * 0.9f), y}, ImGui::GetColorU32(ImGuiCol_Text), s.name.c_str());
        if (in_a_row) {
            row_x += w + 4;
        } else {
            y += lh + 3;
        }
    }
}

}  // namespace gpulab::app
