// The convolution canvas's last two tabs. "Channels" shows a CNN layer honestly: every input
// channel, the filter bank (K filters, each C x R x S, one small weight grid per channel) and
// every output feature map as small multiples, so the channel sum is on screen rather than hidden.
// For a per-channel picture it shows instead what that mode computes: the R, G and B planes, the
// one filter, each plane's own output and the three recombined into a colour picture.
// "Pooling" shows the single-channel output (per channel: the current plane's) before and after
// 2x2 max pooling with both sizes, and one 4x4 patch of real output values next to the 2x2 values
// pooling keeps.
// Checked by eye in the screenshots (/tmp/conv_channels.png).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "conv2d_view.h"
#include "measure/format.h"
#include "widgets/diverging_map.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr int64_t kMaxShown = 8;

std::string fixed_mflop(double flops) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", flops / 1e6);
    return buf;
}

void tile(TensorTexture* t, float side, const char* label) {
    ImGui::BeginGroup();
    if (t && t->rgba_texture() != 0)
        ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(t->rgba_texture())), {side, side});
    else
        ImGui::Dummy({side, side});
    ImGui::TextColored(kMutedColour, "%s", label);
    ImGui::EndGroup();
}


// A picture of w x h fitted into a square of `side` (aspect kept), with a label under it.
void picture_tile(GLuint id, float w, float h, float side, const char* label, ImVec4 label_colour) {
    ImGui::BeginGroup();
    const float s = side / std::max({w, h, 1.0f});
    const ImVec2 at = ImGui::GetCursorScreenPos();
    if (id != 0)
        ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(id)), {w * s, h * s});
    else
        ImGui::Dummy({w * s, h * s});
    ImGui::SetCursorScreenPos({at.x, at.y + h * s + ImGui::GetStyle().ItemSpacing.y});
    // One line as wide as the picture: a longer label is cut with "..." rather than running into the
    // next column (the tooltip has it whole).
    std::string text = label;
    if (ImGui::CalcTextSize(text.c_str()).x > side) {
        while (!text.empty() && ImGui::CalcTextSize((text + "...").c_str()).x > side) text.pop_back();
        text += "...";
    }
    ImGui::TextColored(label_colour, "%s", text.c_str());
    if (text != label) hover_tip(label);
    ImGui::EndGroup();
}

}  // namespace

void Conv2dView::draw_colour_planes_panel() {
    const core::Conv2dRun& run = result_->run;
    const core::Conv2dDesc& d = run.desc;
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const float fs = ImGui::GetFontSize();
    const ImGuiStyle& st = ImGui::GetStyle();
    ImGui::TextWrapped(
        "A colour picture is three pictures, the R, G and B planes. Each plane is filtered on its own with the "
        "same weights: N=3, C=1 in N,C,H,W terms. A CNN layer instead sums over all its input channels "
        "(tick 'CNN layer').");
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float foot = lh * 1.2f;
    const float gap = std::floor(fs * 0.8f);
    const float W = static_cast<float>(d.width), H = static_cast<float>(d.height);
    const float QW = static_cast<float>(d.out_width()), PH = static_cast<float>(d.out_height());
    // The filter at the left, then two rows of four: the input planes and the colour input above,
    // each plane's output and the colour output below; a column per plane.
    const float filter_w = std::floor(std::min(avail.x * 0.15f, fs * 9.0f));
    const float side = std::max(
        8.0f, std::floor(std::min((avail.y - foot - 2.0f * lh - gap) / 2.0f,
                                  (avail.x - filter_w - 5.0f * gap) / 4.0f)));
    const ImVec2 o = ImGui::GetCursorScreenPos();

    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + filter_w);
    ImGui::TextColored(kMutedColour, "the same filter (%s) on each plane", run.params.filter.c_str());
    ImGui::PopTextWrapPos();
    draw_filter_grid(run.filters, d.kernel, filter_w);
    ImGui::EndGroup();

    const float x0 = o.x + filter_w + gap * 2.0f;
    const float row_h = side + lh + gap;
    auto cell = [&](int col, int row, GLuint id, float w, float h, const char* label, ImVec4 colour) {
        ImGui::SetCursorScreenPos({x0 + static_cast<float>(col) * (side + gap), o.y + static_cast<float>(row) * row_h});
        picture_tile(id, w, h, side, label, colour);
    };
    for (int64_t n = 0; n < 3; ++n) {
        char in_label[32], out_label[32];
        std::snprintf(in_label, sizeof in_label, "%s plane (n = %lld)", kChannelNames[n], static_cast<long long>(n));
        std::snprintf(out_label, sizeof out_label, "%s filtered", kChannelNames[n]);
        const int col = static_cast<int>(n);
        cell(col, 0, plane_in_tex_[n].id(), W, H, in_label, channel_tint(n));
        cell(col, 1, plane_out_tex_[n] ? plane_out_tex_[n]->rgba_texture() : 0, QW, PH, out_label, channel_tint(n));
        hover_tip((std::string("This plane's output in the diverging map (blue below zero, white at zero, ") +
                   diverging_positive_word() + " above); one range for all three planes, so they compare.")
                      .c_str());
    }
    cell(3, 0, input_tex_.id(), W, H, "colour input", kMutedColour);
    cell(3, 1, recombined_tex_.id(), QW, PH, "colour output", kMutedColour);
    hover_tip(recombined_note_.c_str());
    // Arrows from each input plane down to its output: the filter applied to that plane alone.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int col = 0; col < 4; ++col) {
        const float cx = x0 + static_cast<float>(col) * (side + gap) + side * 0.5f;
        // From under the label to the next row's picture, not through the label.
        const float y1 = o.y + side + st.ItemSpacing.y + fs + 2.0f, y2 = o.y + row_h;
        if (y2 - y1 < 4.0f) continue;
        dl->AddLine({cx, y1}, {cx, y2 - 1}, IM_COL32(200, 200, 205, 160), 1.5f);
    }
    ImGui::SetCursorScreenPos({o.x, o.y + 2.0f * row_h});
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("Colour output: %s.", recombined_note_.c_str());
    ImGui::PopStyleColor();
}

void Conv2dView::draw_channels_panel() {
    // A per-channel picture result is shown as what it is: three planes, one filter.
    if (!params_.layer_mode && per_channel_result()) {
        draw_colour_planes_panel();
        return;
    }
    if (!draw_result_note(true)) {
        ImGui::BeginDisabled(host_.jobs->busy());
        if (ImGui::Button("Run a CNN layer (C=3, K=4)")) {
            params_.layer_mode = true;
            request_run();
        }
        ImGui::EndDisabled();
        return;
    }
    const core::Conv2dRun& run = layer_result_->run;
    const core::Conv2dDesc& d = run.desc;
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const ImGuiStyle& st = ImGui::GetStyle();
    ImGui::TextWrapped(
        "One CNN layer: input %lld channels of %lld x %lld, %lld filters of %lld x %lld x %lld "
        "(C x R x S), output %lld maps of %lld x %lld.",
        static_cast<long long>(d.channels), static_cast<long long>(d.height), static_cast<long long>(d.width),
        static_cast<long long>(d.filters), static_cast<long long>(d.channels), static_cast<long long>(d.kernel),
        static_cast<long long>(d.kernel), static_cast<long long>(d.filters), static_cast<long long>(d.out_height()),
        static_cast<long long>(d.out_width()));
    // Its own line: ImGui's word wrap may break after the "." inside "3.54".
    ImGui::Text("%s weights, %s MFLOP per run.", core::format_count(d.filter_elements()).c_str(),
                fixed_mflop(d.flops()).c_str());
    const int64_t C = std::min(d.channels, kMaxShown), K = std::min(d.filters, kMaxShown);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float foot = lh * 3.2f;
    // Three columns: input channels, the filter bank (K rows of C small grids), output maps.
    const float rows_h = avail.y - foot - lh;
    const float side_in = std::max(8.0f, std::floor(std::min(rows_h / static_cast<float>(C) - lh, avail.x * 0.18f)));
    const float side_out = std::max(8.0f, std::floor(std::min(rows_h / static_cast<float>(K) - lh, avail.x * 0.18f)));
    const float col_in = std::max(side_in, ImGui::CalcTextSize("input channels").x);
    const float col_out = std::max(side_out, ImGui::CalcTextSize("output maps").x);
    const float bank_w = avail.x - col_in - col_out - 4 * st.ItemSpacing.x;
    ImGui::BeginGroup();
    ImGui::TextUnformatted("input channels");
    ImGui::Dummy({col_in, 0});
    for (int64_t c = 0; c < C; ++c) {
        char label[32];
        std::snprintf(label, sizeof label, "c = %lld", static_cast<long long>(c));
        tile(c < static_cast<int64_t>(channel_tex_.size()) ? channel_tex_[static_cast<std::size_t>(c)].get() : nullptr,
             side_in, label);
    }
    ImGui::EndGroup();
    ImGui::SameLine();

    ImGui::BeginGroup();
    ImGui::TextUnformatted("filters: row k = filter k, one R x S slice per input channel");
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const int64_t R = d.kernel;
    const float gap = ImGui::GetFontSize() * 0.6f;
    const float row_h = std::max((rows_h - lh) / static_cast<float>(K), 6.0f);
    const float cell =
        std::floor(std::max(1.0f, std::min((bank_w - gap * static_cast<float>(C + 2)) / static_cast<float>(C * R + 4),
                                           (row_h - 4) / static_cast<float>(R))));
    float range = 0.0f;
    for (float v : run.filters.data) range = std::max(range, std::fabs(v));
    for (int64_t k = 0; k < K; ++k) {
        const float y = o.y + static_cast<float>(k) * row_h;
        char label[16];
        std::snprintf(label, sizeof label, "k=%lld", static_cast<long long>(k));
        dl->AddText({o.x, y + (cell * static_cast<float>(R) - ImGui::GetFontSize()) * 0.5f},
                    IM_COL32(190, 190, 195, 255), label);
        float x = o.x + ImGui::CalcTextSize("k=00").x + gap;
        for (int64_t c = 0; c < C; ++c) {
            for (int64_t r = 0; r < R; ++r)
                for (int64_t s = 0; s < R; ++s) {
                    const std::size_t i = static_cast<std::size_t>(((k * d.channels + c) * R + r) * R + s);
                    if (i >= run.filters.data.size()) continue;
                    const ImVec2 a{x + static_cast<float>(s) * cell, y + static_cast<float>(r) * cell};
                    dl->AddRectFilled(a, {a.x + cell, a.y + cell}, diverging_colour(run.filters.data[i], range));
                }
            dl->AddRect({x, y}, {x + cell * static_cast<float>(R), y + cell * static_cast<float>(R)},
                        IM_COL32(90, 90, 100, 255));
            x += cell * static_cast<float>(R) + gap;
            if (c + 1 < C)
                dl->AddText({x - gap * 0.85f, y + (cell * static_cast<float>(R) - ImGui::GetFontSize()) * 0.5f},
                            IM_COL32(150, 150, 155, 255), "+");
        }
        dl->AddText({x, y + (cell * static_cast<float>(R) - ImGui::GetFontSize()) * 0.5f}, IM_COL32(230, 230, 230, 255),
                    "->");
    }
    ImGui::Dummy({bank_w, row_h * static_cast<float>(K)});
    ImGui::EndGroup();
    ImGui::SameLine();

    ImGui::BeginGroup();
    ImGui::TextUnformatted("output maps");
    ImGui::Dummy({col_out, 0});
    for (int64_t k = 0; k < K; ++k) {
        char label[32];
        std::snprintf(label, sizeof label, "k = %lld", static_cast<long long>(k));
        tile(k < static_cast<int64_t>(feature_tex_.size()) ? feature_tex_[static_cast<std::size_t>(k)].get() : nullptr,
             side_out, label);
    }
    ImGui::EndGroup();

    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    if (d.channels > C || d.filters > K)
        ImGui::Text("Showing %lld of %lld channels and %lld of %lld filters.", static_cast<long long>(C),
                    static_cast<long long>(d.channels), static_cast<long long>(K), static_cast<long long>(d.filters));
    ImGui::TextWrapped(
        "Output map k = sum over every input channel c of (channel c slid over by filter k's slice c). "
        "Still, every output value is independent of every other: K x P x Q threads. Random data and "
        "weights, as in an untrained layer.");
    ImGui::PopStyleColor();
}

void Conv2dView::draw_pooling_panel() {
    if (!draw_result_note(false)) return;
    const core::Conv2dRun& run = result_->run;
    const core::Conv2dDesc& d = run.desc;
    if (result_->pooled.size() == 0) {
        ImGui::TextColored(kErrorColour, "pooling not possible: %s", result_->pool_error.c_str());
        return;
    }
    const auto& ps = result_->pooled.shape;
    const int64_t PH = ps[ps.size() - 2], PW = ps.back();
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float foot = lh * 3.2f;
    const float h = avail.y - foot - lh;
    const float patch_w = std::floor(avail.x * 0.30f);
    const float side = std::floor(std::min(h, (avail.x - patch_w) * 0.5f - ImGui::GetStyle().ItemSpacing.x * 2));
    const float half = std::floor(side * 0.5f);

    // Per channel the pictures and numbers are the sliding window's current plane.
    const bool rgb = per_channel_result();
    const int64_t n = position_channel();
    // Each plane is pooled on its own; the one shown is the sliding window's current plane.
    const std::string plane_label = rgb ? std::string(" (") + kChannelNames[n] + " plane)" : std::string();
    ImGui::BeginGroup();
    ImGui::Text("before%s: %lld x %lld", plane_label.c_str(), static_cast<long long>(d.out_height()),
                static_cast<long long>(d.out_width()));
    if (output_tex_)
        ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(output_tex_->rgba_texture())), {side, side});
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::Text("after 2x2 max pooling: %lld x %lld", static_cast<long long>(PH), static_cast<long long>(PW));
    // Drawn at half the size: the same picture area per value, so the shrink is visible.
    if (pooled_tex_)
        ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(pooled_tex_->rgba_texture())), {half, half});
    hover_tip("Each pixel here is the largest of a 2x2 block of the output on the left, drawn at half the size.");
    ImGui::EndGroup();
    ImGui::SameLine();

    // A 4x4 patch of real output values around the sliding window's position, and the 2x2 kept.
    ImGui::BeginGroup();
    int64_t p = 0, q = 0;
    position_pq(p, q);
    const int64_t P = d.out_height(), Q = d.out_width();
    const float* out = run.reference_output.ptr() + n * d.filters * d.out_height() * d.out_width();
    float range = 1e-6f;
    int64_t peak = 0;
    for (int64_t i = 0; i < P * Q; ++i)
        if (std::fabs(out[i]) > range) {
            range = std::fabs(out[i]);
            peak = i;
        }
    auto origin = [&](int64_t y, int64_t x, int64_t& oy, int64_t& ox) {
        oy = std::clamp<int64_t>(y & ~int64_t{1}, 0, std::max<int64_t>(P - 4, 0) & ~int64_t{1});
        ox = std::clamp<int64_t>(x & ~int64_t{1}, 0, std::max<int64_t>(Q - 4, 0) & ~int64_t{1});
    };
    int64_t y0 = 0, x0 = 0;
    origin(p, q, y0, x0);
    // A flat patch (all near zero) teaches nothing about "keep the largest": then show the patch
    // around the strongest response instead.
    float patch_max = 0.0f;
    for (int64_t y = y0; y < std::min(y0 + 4, P); ++y)
        for (int64_t x = x0; x < std::min(x0 + 4, Q); ++x) patch_max = std::max(patch_max, std::fabs(out[y * Q + x]));
    if (patch_max < 0.1f * range) origin(peak / Q - 1, peak % Q - 1, y0, x0);
    ImGui::Text("output%s%s[%lld..%lld][%lld..%lld]", rgb ? " " : "", rgb ? kChannelNames[n] : "",
                static_cast<long long>(y0), static_cast<long long>(y0 + 3), static_cast<long long>(x0),
                static_cast<long long>(x0 + 3));
    const float cell = std::floor(std::min((patch_w - 16) / 7.0f, (h - lh * 2) / 4.0f));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    auto value_cell = [&](ImVec2 a, float v, bool kept) {
        const ImU32 bg = diverging_colour(v, range);
        dl->AddRectFilled(a, {a.x + cell, a.y + cell}, bg);
        if (kept) dl->AddRect(a, {a.x + cell, a.y + cell}, IM_COL32(255, 210, 60, 255), 0.0f, 0, 2.0f);
        // "-0.32" is wider than "0.32": a negative value first drops its leading zero ("-.32", as
        // wide as "0.32"), then a decimal, so every cell of the patch, kept or not, shows what max
        // pooling compared; -0.04 never turns into a puzzling "-0.0".
        char t[16];
        if (std::fabs(v) < 0.005f) v = 0.0f;  // the colour already says "about zero"; "-.00" would not
        std::snprintf(t, sizeof t, "%.2f", v);
        ImVec2 ts = ImGui::CalcTextSize(t);
        if (ts.x >= cell - 2 && v < 0.0f && v > -0.995f) {
            std::snprintf(t, sizeof t, "-.%02d", static_cast<int>(std::lround(-v * 100.0f)) % 100);
            ts = ImGui::CalcTextSize(t);
        }
        if (ts.x >= cell - 2) {
            std::snprintf(t, sizeof t, "%.1f", v);
            ts = ImGui::CalcTextSize(t);
        }
        const ImVec4 c = ImGui::ColorConvertU32ToFloat4(bg);
        const ImU32 fg =
            0.3f * c.x + 0.55f * c.y + 0.15f * c.z > 0.55f ? IM_COL32(20, 20, 24, 255) : IM_COL32(240, 240, 240, 255);
        if (ts.x < cell - 2) dl->AddText({a.x + (cell - ts.x) * 0.5f, a.y + (cell - ts.y) * 0.5f}, fg, t);
    };
    for (int64_t by = 0; by < 2; ++by)
        for (int64_t bx = 0; bx < 2; ++bx) {
            int64_t best = -1;
            for (int64_t r = 0; r < 2; ++r)
                for (int64_t c = 0; c < 2; ++c) {
                    const int64_t y = y0 + by * 2 + r, x = x0 + bx * 2 + c;
                    if (y >= P || x >= Q) continue;
                    const int64_t i = y * Q + x;
                    if (best < 0 || out[i] > out[best]) best = i;
                }
            for (int64_t r = 0; r < 2; ++r)
                for (int64_t c = 0; c < 2; ++c) {
                    const int64_t y = y0 + by * 2 + r, x = x0 + bx * 2 + c;
                    if (y >= P || x >= Q) continue;
                    value_cell({o.x + static_cast<float>(bx * 2 + c) * cell + static_cast<float>(bx) * 4,
                                o.y + static_cast<float>(by * 2 + r) * cell + static_cast<float>(by) * 4},
                               out[y * Q + x], y * Q + x == best);
                }
            if (best >= 0)
                value_cell({o.x + 5 * cell + 12 + static_cast<float>(bx) * (cell + 4),
                            o.y + cell + static_cast<float>(by) * (cell + 4)},
                           out[best], false);
        }
    // The arrow sits in the middle of the gap between the 4x4 patch and the pooled 2x2, clear of the frames.
    const float arrow_w = ImGui::CalcTextSize("->").x;
    dl->AddText({o.x + 4 * cell + 4 + (cell + 8 - arrow_w) * 0.5f, o.y + cell * 2 - ImGui::GetFontSize() * 0.5f},
                IM_COL32(230, 230, 230, 255), "->");
    ImGui::Dummy({patch_w, 4 * cell + 4});
    ImGui::TextColored(kMutedColour, "framed: the largest of each 2x2 block");
    ImGui::EndGroup();

    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped(
        "Pooling keeps a quarter of the values (%s -> %s): the strongest response of each 2x2 block "
        "survives, so the next layer sees a smaller map of where features are. CNNs stack convolution, "
        "pooling and, at the end, fully connected layers. Every pooled value is independent too.",
        core::format_count(P * Q).c_str(), core::format_count(PH * PW).c_str());
    ImGui::PopStyleColor();
}

}  // namespace gpulab::app
