// The SIMD-vs-MIMD pictures, drawn with ImDrawList: the scalar-vs-vector bars, the MIMD per-thread
// timeline from real timestamps, the warp grid (lanes across, steps down, masked lanes grey) and
// the divergence cost table. The Canvas and the exported <lesson>-simd.png call these same
// functions, so the report shows the screen. Checked by the gui.simd_* PNG tests and by eye.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "measure/format.h"
#include "simd_mimd_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr ImU32 kTextColour = IM_COL32(225, 225, 230, 255);
constexpr ImU32 kMutedU32 = IM_COL32(150, 150, 155, 255);
constexpr ImU32 kMaskedLane = IM_COL32(52, 54, 62, 255);
constexpr ImU32 kFutureLane = IM_COL32(38, 40, 46, 255);
constexpr ImU32 kGridLine = IM_COL32(90, 92, 100, 255);

// Round `v` up to 1, 2 or 5 times a power of ten: tick spacing a reader can add up.
double nice_step(double v) {
    if (v <= 0) return 1;
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    const double m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

int popcount(uint32_t v) {
    int n = 0;
    for (; v; v &= v - 1) ++n;
    return n;
}

// Text clipped to a rectangle, so a long task name never spills over its neighbours.
void clipped_text(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 col, const std::string& text) {
    dl->PushClipRect(a, b, true);
    dl->AddText(a, col, text.c_str());
    dl->PopClipRect();
}

}  // namespace

ImU32 path_color(int path, float alpha) {
    // Eight well-separated hues for paths 0..7 (every pattern but 32-way stays within them), then
    // the golden-ratio walk around the wheel for the rest.
    static const float kHues[8] = {0.33f, 0.58f, 0.08f, 0.80f, 0.15f, 0.95f, 0.47f, 0.68f};
    const float h = path >= 0 && path < 8 ? kHues[path] : std::fmod(0.33f + 0.618034f * static_cast<float>(path), 1.0f);
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(h, 0.62f, 0.95f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32({r, g, b, alpha});
}

ImU32 task_color(const std::string& task, float alpha) {
    uint32_t h = 2166136261u;
    for (char ch : task) h = (h ^ static_cast<uint8_t>(ch)) * 16777619u;
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(static_cast<float>(h % 360) / 360.0f, 0.50f, 0.90f, r, g, b);
    return ImGui::ColorConvertFloat4ToU32({r, g, b, alpha});
}

// [SECTION] SIMD bars

void draw_simd_bars(const core::SimdComparison& s, float width) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    // Scaled to the slower side's p75: one outlier on a shared machine must not squash the bars.
    const double longest = 1.08 * static_cast<double>(std::max({s.scalar.p75_ns, s.simd.p75_ns, int64_t{1}}));
    struct Row {
        std::string label, short_label;
        const core::Stats* stats;
        ImU32 colour;
    };
    const std::string lanes = std::to_string(s.lanes);
    const Row rows[] = {
        {"scalar: 1 float per instruction", "scalar: 1 float", &s.scalar, backend_color("cpu-scalar")},
        {s.isa + ": " + lanes + " floats per instruction", s.isa + ": " + lanes + " floats", &s.simd, path_color(0)},
    };
    // The label column is as wide as the labels, up to 45 % of the row; at large presenter scales the
    // short labels take over rather than run into the bars.
    const float gap = lh * 0.6f;
    bool use_short = false;
    float label_w = 0.0f;
    for (const Row& r : rows) label_w = std::max(label_w, ImGui::CalcTextSize(r.label.c_str()).x + gap);
    if (label_w > width * 0.45f) {
        use_short = true;
        label_w = 0.0f;
        for (const Row& r : rows) label_w = std::max(label_w, ImGui::CalcTextSize(r.short_label.c_str()).x + gap);
    }
    const float value_w = ImGui::CalcTextSize("999.9 ms median").x + lh;
    const float bar_w = std::max(width - label_w - value_w, lh * 4.0f);
    for (const Row& r : rows) {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float h = lh * 1.5f;
        dl->AddText({p.x, p.y + (h - lh) * 0.5f}, kTextColour, (use_short ? r.short_label : r.label).c_str());
        const float x0 = p.x + label_w;
        auto x_of = [&](int64_t ns) {
            return x0 + bar_w * static_cast<float>(std::min(static_cast<double>(ns) / longest, 1.0));
        };
        dl->AddRectFilled({x0, p.y + 2}, {x_of(r.stats->median_ns), p.y + h - 2}, r.colour, 3.0f);
        // p25..p75 whisker: how much the middle half of the timed runs moved around the median.
        const float ym = p.y + h * 0.5f;
        const ImU32 wc = IM_COL32(235, 235, 240, 210);
        dl->AddLine({x_of(r.stats->p25_ns), ym}, {x_of(r.stats->p75_ns), ym}, wc, 1.5f);
        dl->AddLine({x_of(r.stats->p25_ns), p.y + 6}, {x_of(r.stats->p25_ns), p.y + h - 6}, wc, 1.5f);
        dl->AddLine({x_of(r.stats->p75_ns), p.y + 6}, {x_of(r.stats->p75_ns), p.y + h - 6}, wc, 1.5f);
        const std::string v = core::format_duration(r.stats->median_ns) + " median";
        dl->AddText({std::max(x_of(r.stats->p75_ns), x_of(r.stats->median_ns)) + 6, p.y + (h - lh) * 0.5f},
                    kTextColour, v.c_str());
        ImGui::Dummy({width, h + 2});
    }
    char buf[200];
    const double per_scalar = static_cast<double>(s.scalar.median_ns) / static_cast<double>(std::max<int64_t>(s.elements, 1));
    const double per_simd = static_cast<double>(s.simd.median_ns) / static_cast<double>(std::max<int64_t>(s.elements, 1));
    std::snprintf(buf, sizeof buf, "%s faster on one core", core::format_ratio(s.speedup).c_str());
    ImGui::TextColored(kAccentColour, "%s", buf);
    ImGui::SameLine();
    std::snprintf(buf, sizeof buf, "(%.2f ns vs %.2f ns per element, medians of %d runs)", per_scalar, per_simd,
                  s.scalar.samples);
    ImGui::TextColored(kMutedColour, "%s", buf);
    // Why the ratio is not simply the register width, in whichever direction it misses.
    if (s.speedup > s.lanes * 1.05)
        std::snprintf(buf, sizeof buf,
                      "More than %d lanes would give: the vector loop also uses a short polynomial exp, while the "
                      "scalar loop calls the C library's expf (accurate to within 1 ulp).",
                      s.lanes);
    else if (s.speedup < s.lanes * 0.6)
        std::snprintf(buf, sizeof buf,
                      "Below the %d lanes: loads, stores, the loop itself and, for large arrays, memory bandwidth "
                      "take part of the time.",
                      s.lanes);
    else
        std::snprintf(buf, sizeof buf, "Close to the %d lanes of the register: the arithmetic dominates.", s.lanes);
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("%s", buf);
    ImGui::PopStyleColor();
    if (s.results_equal)
        text_status(Status::Ok, "same results as the scalar loop (within the activation tolerance)");
    else
        text_status(Status::Error, "the vector results differ from the scalar loop beyond the tolerance");
}

// [SECTION] MIMD timeline

void draw_mimd_timeline(const core::MimdTimeline& t, ImVec2 size, float playhead) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float label_w = lh * 8.5f;
    const float axis_h = lh * 1.6f;
    const int rows = std::max(t.threads, 1) + 1;  // + the sequential row
    const float gap = lh * 0.5f;
    const float row_h = std::clamp((size.y - axis_h - gap) / static_cast<float>(rows), lh * 1.1f, lh * 2.6f);
    const float x0 = p0.x + label_w, x1 = p0.x + size.x - lh;
    const double span_ns = static_cast<double>(std::max({t.wall_ns, t.sequential_ns, int64_t{1}}));
    auto x_of = [&](double ns) { return x0 + (x1 - x0) * static_cast<float>(ns / span_ns); };

    // Per thread: its cpu (the first span's) and task; per task: the busy time it needed.
    std::map<int, std::pair<int, std::string>> who;
    std::map<int, std::string> cpus_of;  // "cpu 0", "cpus 0,1" when the OS moved the thread
    std::map<std::string, double> busy;
    std::vector<std::string> order;
    for (const core::TimelineSpan& sp : t.spans) {
        if (!who.count(sp.thread)) who[sp.thread] = {sp.cpu, sp.task};
        if (sp.cpu >= 0) {
            std::string& c = cpus_of[sp.thread];
            const std::string id = std::to_string(sp.cpu);
            if (c.empty())
                c = id;
            else if (("," + c + ",").find("," + id + ",") == std::string::npos)
                c += "," + id;
        }
        if (!busy.count(sp.task)) order.push_back(sp.task);
        busy[sp.task] += static_cast<double>(sp.end_ns - sp.start_ns);
    }
    for (int th = 0; th < t.threads; ++th) {
        const float y = p0.y + static_cast<float>(th) * row_h;
        const auto it = who.find(th);
        char label[96];
        const auto c = cpus_of.find(th);
        if (it != who.end() && c != cpus_of.end())
            std::snprintf(label, sizeof label, "thread %d, cpu%s %s", th,
                          c->second.find(',') != std::string::npos ? "s" : "", c->second.c_str());
        else
            std::snprintf(label, sizeof label, "thread %d", th);
        dl->AddText({p0.x, y + (row_h - lh) * 0.5f}, kTextColour, label);
        dl->AddRectFilled({x0, y + 2}, {x1, y + row_h - 2}, IM_COL32(34, 36, 42, 255), 2.0f);
    }
    for (const core::TimelineSpan& sp : t.spans) {
        if (sp.thread < 0 || sp.thread >= t.threads) continue;
        const float y = p0.y + static_cast<float>(sp.thread) * row_h;
        const float a = x_of(static_cast<double>(sp.start_ns)), b = std::max(x_of(static_cast<double>(sp.end_ns)), a + 1);
        dl->AddRectFilled({a, y + 3}, {b, y + row_h - 3}, task_color(sp.task), 2.0f);
        dl->AddLine({b, y + 3}, {b, y + row_h - 3}, IM_COL32(20, 20, 24, 255), 1.0f);
    }
    // The task name over each thread's row, on a dark backing so it reads over any colour.
    for (const auto& [th, info] : who) {
        if (th < 0 || th >= t.threads) continue;
        const float y = p0.y + static_cast<float>(th) * row_h + (row_h - lh) * 0.5f;
        const ImVec2 ts = ImGui::CalcTextSize(info.second.c_str());
        dl->AddRectFilled({x0 + 4, y - 1}, {std::min(x0 + 10 + ts.x, x1), y + lh + 1}, IM_COL32(20, 20, 24, 190), 3.0f);
        clipped_text(dl, {x0 + 7, y}, {x1, y + lh}, kTextColour, info.second);
    }
    // The same work on one thread, one task after another: its measured total, split by each
    // task's share of the busy time in the parallel run.
    {
        const float y = p0.y + static_cast<float>(rows - 1) * row_h + gap * 0.5f;
        dl->AddText({p0.x, y + (row_h - lh) * 0.5f}, kMutedU32, "one thread");
        double total = 0;
        for (const auto& [task, ns] : busy) total += ns;
        double at = 0;
        for (const std::string& task : order) {
            const double len = total > 0 ? busy[task] / total * static_cast<double>(t.sequential_ns) : 0;
            const float a = x_of(at), b = std::max(x_of(at + len), a + 1);
            dl->AddRectFilled({a, y + 3}, {b, y + row_h - 3}, task_color(task, 0.55f), 2.0f);
            dl->AddLine({b, y + 3}, {b, y + row_h - 3}, IM_COL32(20, 20, 24, 255), 1.0f);
            at += len;
        }
        const std::string seq = "in turn: " + core::format_duration(t.sequential_ns);
        const ImVec2 ts = ImGui::CalcTextSize(seq.c_str());
        const float tx = std::max(x_of(static_cast<double>(t.sequential_ns)) - ts.x - 6, x0 + 4);
        dl->AddRectFilled({tx - 3, y + (row_h - lh) * 0.5f - 1}, {tx + ts.x + 3, y + (row_h + lh) * 0.5f + 1},
                          IM_COL32(20, 20, 24, 200), 3.0f);
        dl->AddText({tx, y + (row_h - lh) * 0.5f}, kTextColour, seq.c_str());
    }
    // Wall time of the parallel run: where every thread was done.
    const float rows_bottom = p0.y + static_cast<float>(rows) * row_h + gap;
    const float xw = x_of(static_cast<double>(t.wall_ns));
    dl->AddLine({xw, p0.y}, {xw, rows_bottom - row_h - gap * 0.5f}, IM_COL32(255, 225, 90, 255), 2.0f);
    // Time axis.
    const float ya = rows_bottom;
    dl->AddLine({x0, ya}, {x1, ya}, kGridLine, 1.0f);
    const double step = nice_step(span_ns / 6.0);
    for (double v = 0; v <= span_ns * 1.0001; v += step) {
        const float x = x_of(v);
        dl->AddLine({x, ya}, {x, ya + 4}, kGridLine, 1.0f);
        const std::string s = v == 0 ? std::string("0") : core::format_duration(static_cast<int64_t>(v));
        const float tw = ImGui::CalcTextSize(s.c_str()).x;
        dl->AddText({std::min(x - tw * 0.5f, x1 - tw), ya + 5}, kMutedU32, s.c_str());
    }
    if (playhead >= 0.0f) {
        const float x = x_of(static_cast<double>(playhead) * static_cast<double>(t.wall_ns));
        dl->AddLine({x, p0.y}, {x, rows_bottom - row_h - gap * 0.5f}, IM_COL32(255, 255, 255, 160), 1.5f);
    }
    ImGui::Dummy({size.x, rows_bottom - p0.y + axis_h});
    const double ratio = t.wall_ns > 0 ? static_cast<double>(t.sequential_ns) / static_cast<double>(t.wall_ns) : 0.0;
    // On a shared or busy machine the OS may put every thread on one core; then they take turns
    // (time slicing), which is concurrency but not MIMD. Say so, from the CPUs the spans recorded,
    // before the ratio, so the sentence is seen first and the ratio does not mislead.
    std::map<int, int> cpus;
    for (const core::TimelineSpan& sp : t.spans)
        if (sp.cpu >= 0) ++cpus[sp.cpu];
    if (cpus.size() == 1 && t.threads > 1 && ratio < 1.3) {
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        ImGui::TextWrapped(
            "Every slice ran on cpu %d: the other cores were busy, so the threads took turns on one core. That is "
            "not what MIMD can do: run again (R) when the machine is idle.",
            cpus.begin()->first);
        ImGui::PopStyleColor();
    } else if (cpus.size() > 1 && t.threads > 1 && ratio < 1.3) {
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColour);
        ImGui::TextWrapped(
            "The threads ran on %zu different cpus, yet together gained little: other programs were using the cores "
            "meanwhile (or the cpus are two hardware threads of one core). Run again (R) when the machine is idle.",
            cpus.size());
        ImGui::PopStyleColor();
    }
    ImGui::TextColored(ImVec4(1.0f, 0.88f, 0.35f, 1.0f), "all at once: %s", core::format_duration(t.wall_ns).c_str());
    ImGui::SameLine();
    // Wrapped: at presenter scales the sentence is wider than the canvas.
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    if (ratio >= 1.0)
        ImGui::TextWrapped("the same tasks one after another: %s, so %s faster together",
                           core::format_duration(t.sequential_ns).c_str(), core::format_ratio(ratio).c_str());
    else
        ImGui::TextWrapped("the same tasks one after another: %s, so together was %s slower",
                           core::format_duration(t.sequential_ns).c_str(),
                           core::format_ratio(ratio > 0 ? 1.0 / ratio : 0.0).c_str());
    ImGui::PopStyleColor();
}

// [SECTION] warp grid

void draw_warp_grid(const std::vector<WarpReplay>& in, float shown_steps, ImVec2 size, bool merged) {
    if (in.empty()) return;
    // Merged: each warp's steps folded into one row (the lanes' choices, not yet serialised).
    std::vector<WarpReplay> folded;
    if (merged) {
        for (const WarpReplay& w : in) {
            WarpReplay f;
            f.warp = w.warp;
            f.steps.push_back({-1, 0});
            for (const auto& st : w.steps) f.steps[0].active |= st.active;
            folded.push_back(std::move(f));
        }
        shown_steps = 1.0f;
    }
    const std::vector<WarpReplay>& warps = merged ? folded : in;
    // Per warp and lane, the path the lane takes (for the merged colours).
    auto lane_path = [&](std::size_t k, int lane) {
        for (const auto& st : in[k].steps)
            if ((st.active >> lane) & 1u) return st.path;
        return 0;
    };
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float lh = ImGui::GetTextLineHeight();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const int n = static_cast<int>(warps.size());
    int max_steps = 1;
    for (const auto& w : warps) max_steps = std::max(max_steps, static_cast<int>(w.steps.size()));
    const float header_h = lh * 1.3f, footer_h = lh * 2.5f;
    const float row_h = std::clamp((size.y - header_h - footer_h) / static_cast<float>(max_steps), 3.0f, lh * 1.4f);
    const bool row_labels = row_h >= lh * 0.9f;
    const float margin = row_labels ? lh * 3.2f : 0.0f;
    const float gap = lh * 1.0f;
    const float warp_w = (size.x - margin - gap * static_cast<float>(n - 1)) / static_cast<float>(n);
    const float lane_w = warp_w / static_cast<float>(simt::kWarpSize);
    const int current = static_cast<int>(std::floor(shown_steps));
    const float lane_pad = lane_w >= 6.0f ? 1.0f : 0.0f;
    const float row_pad = row_h >= 6.0f ? 1.0f : 0.0f;

    if (row_labels) {
        for (int r = 0; r < max_steps; ++r) {
            char buf[16];
            if (merged)
                std::snprintf(buf, sizeof buf, "lanes");
            else
                std::snprintf(buf, sizeof buf, "step %d", r + 1);
            dl->AddText({p0.x, p0.y + header_h + static_cast<float>(r) * row_h + (row_h - lh) * 0.5f},
                        r == current ? kTextColour : kMutedU32, buf);
        }
    }
    for (int k = 0; k < n; ++k) {
        const WarpReplay& w = warps[static_cast<std::size_t>(k)];
        const float x0 = p0.x + margin + static_cast<float>(k) * (warp_w + gap);
        char head[64];
        std::snprintf(head, sizeof head, "warp %d (threads %d-%d)", w.warp, w.warp * simt::kWarpSize,
                      w.warp * simt::kWarpSize + simt::kWarpSize - 1);
        clipped_text(dl, {x0, p0.y}, {x0 + warp_w, p0.y + lh}, kTextColour, head);
        const int steps = static_cast<int>(w.steps.size());
        for (int r = 0; r < max_steps; ++r) {
            const float y = p0.y + header_h + static_cast<float>(r) * row_h;
            if (r >= steps) continue;  // this warp finished early: nothing issued
            const core::WarpStep& st = w.steps[static_cast<std::size_t>(r)];
            const bool done = r < current, now = r == current;
            for (int lane = 0; lane < simt::kWarpSize; ++lane) {
                const float a = x0 + static_cast<float>(lane) * lane_w;
                const bool on = (st.active >> lane) & 1u;
                ImU32 c = kFutureLane;
                if (merged) c = path_color(lane_path(static_cast<std::size_t>(k), lane));
                else if (done || now) c = on ? path_color(st.path, now ? 1.0f : 0.75f) : kMaskedLane;
                dl->AddRectFilled({a + lane_pad, y + row_pad}, {a + lane_w - lane_pad, y + row_h - row_pad}, c,
                                  lane_w >= 8.0f ? 2.0f : 0.0f);
            }
            // A GPU replay: the path's recorded clock window as a line along the row's foot, on one
            // time axis per warp, so paths that ran interleaved (Volta and later) show as overlaps.
            if ((done || now) && !merged && static_cast<std::size_t>(r) < w.start_clock.size() && row_h >= 6.0f) {
                const int64_t span = std::max<int64_t>(*std::max_element(w.end_clock.begin(), w.end_clock.end()), 1);
                const float xa = x0 + warp_w * static_cast<float>(w.start_clock[static_cast<std::size_t>(r)]) / span;
                const float xb = x0 + warp_w * static_cast<float>(w.end_clock[static_cast<std::size_t>(r)]) / span;
                dl->AddRectFilled({xa, y + row_h - 3.0f}, {std::max(xb, xa + 2.0f), y + row_h - 1.0f},
                                  IM_COL32(255, 255, 255, 200));
            }
            // The step being executed: framed where rows are tall, marked at the side where they are thin.
            if (now && !merged && row_h >= 8.0f)
                dl->AddRect({x0 - 2, y - 1}, {x0 + warp_w + 2, y + row_h + 1}, IM_COL32(255, 255, 255, 230), 3.0f, 0,
                            2.0f);
            else if (now && !merged)
                dl->AddTriangleFilled({x0 - 7, y + row_h * 0.5f - 4}, {x0 - 7, y + row_h * 0.5f + 4},
                                      {x0 - 1, y + row_h * 0.5f}, IM_COL32(255, 255, 255, 230));
            // The path number at the row's first active lane, where the cell is big enough to read.
            if ((done || now) && !merged && row_h >= lh * 0.9f && lane_w >= lh * 0.9f) {
                for (int lane = 0; lane < simt::kWarpSize; ++lane) {
                    if (!((st.active >> lane) & 1u)) continue;
                    char num[8];
                    std::snprintf(num, sizeof num, "%d", st.path);
                    const ImVec2 ts = ImGui::CalcTextSize(num);
                    const float a = x0 + static_cast<float>(lane) * lane_w;
                    if (ts.x <= lane_w)
                        dl->AddText({a + (lane_w - ts.x) * 0.5f, y + (row_h - lh) * 0.5f}, IM_COL32(15, 15, 20, 255),
                                    num);
                }
            }
        }
        // Under each warp: what it cost and, during the replay, what the current step does.
        const float yf = p0.y + header_h + static_cast<float>(max_steps) * row_h + lh * 0.3f;
        char foot[128];
        if (merged) {
            std::snprintf(foot, sizeof foot, "%d branches among its lanes",
                          static_cast<int>(in[static_cast<std::size_t>(k)].steps.size()));
            clipped_text(dl, {x0, yf}, {x0 + warp_w, yf + lh}, kTextColour, foot);
            continue;
        }
        int busy = 0;
        for (const auto& st : w.steps) busy += popcount(st.active);
        std::snprintf(foot, sizeof foot, "%d step%s, %.0f%% of lanes busy", steps, steps == 1 ? "" : "s",
                      steps > 0 ? 100.0 * busy / (steps * simt::kWarpSize) : 0.0);
        clipped_text(dl, {x0, yf}, {x0 + warp_w, yf + lh}, steps > 1 ? IM_COL32(255, 200, 120, 255) : kTextColour,
                     foot);
        if (current >= 0 && current < steps) {
            const core::WarpStep& st = w.steps[static_cast<std::size_t>(current)];
            // Recorded windows are drawn as recorded: since Volta a path may start before the previous
            // one ended (interleaved), which the footer says rather than hides.
            const auto cur = static_cast<std::size_t>(current);
            const bool overlaps = current > 0 && cur < w.start_clock.size() && w.start_clock[cur] < w.end_clock[cur - 1];
            if (!w.start_clock.empty())
                std::snprintf(foot, sizeof foot, "now: path %d, %d lanes, cycles %lld-%lld%s", st.path,
                              popcount(st.active), static_cast<long long>(w.start_clock[cur]),
                              static_cast<long long>(w.end_clock[cur]), overlaps ? " (overlaps the previous)" : "");
            else
                std::snprintf(foot, sizeof foot, "now: path %d, %d of 32 lanes active", st.path, popcount(st.active));
            clipped_text(dl, {x0, yf + lh}, {x0 + warp_w, yf + 2 * lh}, kMutedU32, foot);
        } else if (current >= steps && current < max_steps + 1 && shown_steps < 1e8f) {
            clipped_text(dl, {x0, yf + lh}, {x0 + warp_w, yf + 2 * lh}, kMutedU32, "done");
        }
    }
    ImGui::Dummy({size.x, header_h + static_cast<float>(max_steps) * row_h + footer_h});
}

// [SECTION] cost table

std::string no_gpu_timings_line() {
    // "this machine" only when it measured here: an imported result came from another computer.
    return shown_result_machine().empty() ? "(no GPU timings on this machine: the theory column is the warp emulator's)"
                                          : "(no GPU timings in this measurement: the theory column is the warp emulator's)";
}

std::string no_gpu_timings_detail(const SimdMimdMeasurement& m) {
    std::string detail = m.gpu_error;
    if (!m.sim_refusal.empty()) detail += "\n\nWhy the simulator cannot stand in here: " + m.sim_refusal;
    return detail;
}

void draw_cost_table(const SimdMimdMeasurement& m, simt::Pattern highlight, std::optional<simt::Pattern> hidden,
                     bool note_below) {
    const ImGuiTableFlags tf = ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##divergence_costs", 4, tf)) return;
    ImGui::TableSetupColumn("branch pattern", ImGuiTableColumnFlags_WidthStretch, 2.2f);
    ImGui::TableSetupColumn("paths per warp (theory)", ImGuiTableColumnFlags_WidthStretch, 1.3f);
    ImGui::TableSetupColumn("GPU kernel, median", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableSetupColumn("measured vs uniform", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableHeadersRow();
    for (const PatternCost& c : m.costs) {
        ImGui::TableNextRow();
        const bool hl = c.pattern == highlight;
        if (hl) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(60, 80, 110, 200));
        ImGui::TableSetColumnIndex(0);
        ImGui::TextUnformatted(std::string(core::pattern_label(c.pattern)).c_str());
        if (hidden && *hidden == c.pattern) {
            for (int col = 1; col < 4; ++col) {
                ImGui::TableSetColumnIndex(col);
                ImGui::TextColored(kAccentColour, "? (answer the prompt)");
            }
            continue;
        }
        ImGui::TableSetColumnIndex(1);
        if (c.theoretical <= 1.0001)
            ImGui::Text("1  (no extra paths)");
        else
            ImGui::Text("%.2g  (%s slower)", c.theoretical, core::format_ratio(c.theoretical).c_str());
        ImGui::TableSetColumnIndex(2);
        if (c.measured)
            ImGui::TextUnformatted(core::format_duration(c.kernel_ns).c_str());
        else
            ImGui::TextColored(kMutedColour, "not measured");
        ImGui::TableSetColumnIndex(3);
        if (c.measured)
            ImGui::TextUnformatted(core::format_ratio(c.measured_factor).c_str());
        else
            ImGui::TextColored(kMutedColour, "-");
    }
    ImGui::EndTable();
    if (!m.gpu_ran && note_below) {
        ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
        // The reason is already on screen (the canvas line and the Devices panel): here it is only
        // in the tooltip, so a student without a GPU does not read the same sentence three times.
        // "this machine" only when it measured here: an imported result came from another computer.
        ImGui::TextWrapped(shown_result_machine().empty()
                               ? "No GPU timings on this machine. The theory column comes from the warp emulator."
                               : "No GPU timings in this measurement. The theory column comes from the warp emulator.");
        // The developer's detail (the driver's error; why cuda-sim cannot replay this kernel) in the
        // tooltip, not on a student's or a projector's screen.
        hover_tip(no_gpu_timings_detail(m).c_str());
        ImGui::PopStyleColor();
    }
}

}  // namespace gpulab::app
