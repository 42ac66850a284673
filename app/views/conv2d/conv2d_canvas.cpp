// The convolution canvas: a tab per panel, the step choosing which is in front. "Sliding window"
// walks the filter over the input one output position at a time and writes out the real numbers
// of the current position (input values under the window, filter values, products, their sum)
// while the output fills in; "All at once" tiles the same output into the 16x16 thread blocks of
// the CUDA tiled kernel and lights them up in waves of SMs x resident blocks (this machine's GPU,
// or an example GPU said to be one), beside one SM of the wave up close (conv2d_sm_warps.cpp: its
// resident warps and warp schedulers, so "all at once" reads as "all resident, interleaved") and the
// text, which scrolls in its own child. Per channel (a colour picture as N=3 one-channel planes) the
// window walks the R, G and B planes in turn, the zoom shows the current plane's numbers and the
// output picture that plane's result; the block grid covers all three planes. The channels and
// pooling tabs are in conv2d_layer.cpp, the trained network's channels in conv2d_trained.cpp.
// Checked by eye in the screenshots (/tmp/conv_sliding.png, /tmp/conv_allatonce.png).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "conv2d_view.h"
#include "measure/format.h"
#include "gpu_model/gpu_model.h"
#include "widgets/diverging_map.h"
#include "widgets/paged_text.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

ImVec2 fit(float w, float h, ImVec2 box) {
    if (w <= 0 || h <= 0 || box.x <= 0 || box.y <= 0) return {0, 0};
    const float s = std::min(box.x / w, box.y / h);
    return {w * s, h * s};
}

void cell_text(ImDrawList* dl, ImVec2 a, float cell, ImU32 bg, float v) {
    v += 0.0f;  // -0.0 (a negative weight times a zero pixel) reads as 0
    if (std::fabs(v) < 0.005f) v = 0.0f;
    char t[16];
    const float av = std::fabs(v);
    if (av != 0.0f && (av < 0.01f || av >= 1000.0f))
        std::snprintf(t, sizeof t, "%.0e", v);
    else
        std::snprintf(t, sizeof t, cell > ImGui::GetFontSize() * 2.6f ? "%.2f" : "%.1f", v);
    const ImVec2 ts = ImGui::CalcTextSize(t);
    if (ts.x > cell - 2) return;  // no room: the colour alone carries it
    dl->AddText({a.x + (cell - ts.x) * 0.5f, a.y + (cell - ts.y) * 0.5f}, text_on(bg), t);
}

void image_at(GLuint id, ImVec2 pos, ImVec2 size) {
    ImGui::SetCursorScreenPos(pos);
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(id)), size);
}

}  // namespace

ImU32 text_on(ImU32 bg) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(bg);
    return 0.3f * c.x + 0.55f * c.y + 0.15f * c.z > 0.55f ? IM_COL32(20, 20, 24, 255) : IM_COL32(240, 240, 240, 255);
}

void draw_filter_grid(const core::Tensor& filters, int64_t kernel, float width) {
    if (kernel <= 0 || filters.size() < kernel * kernel) return;
    const float cell = std::floor(std::min(width / static_cast<float>(kernel), ImGui::GetFontSize() * 3.2f));
    float range = 0.0f;
    for (int64_t i = 0; i < kernel * kernel; ++i)
        range = std::max(range, std::fabs(filters.data[static_cast<std::size_t>(i)]));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    for (int64_t r = 0; r < kernel; ++r)
        for (int64_t c = 0; c < kernel; ++c) {
            const float v = filters.data[static_cast<std::size_t>(r * kernel + c)];
            const ImVec2 a{o.x + static_cast<float>(c) * cell, o.y + static_cast<float>(r) * cell};
            const ImU32 bg = diverging_colour(v, range);
            dl->AddRectFilled(a, {a.x + cell, a.y + cell}, bg);
            dl->AddRect(a, {a.x + cell, a.y + cell}, IM_COL32(30, 30, 34, 255));
            cell_text(dl, a, cell, bg, v);
        }
    ImGui::Dummy({cell * static_cast<float>(kernel), cell * static_cast<float>(kernel)});
}

void Conv2dView::draw_canvas() {
    static constexpr PanelTab<Panel> kTabs[] = {
        {"Sliding window", Panel::Sliding,
         "The filter visits one output position at a time: multiply the input values under it by the filter, "
         "add up, write one output pixel. Real numbers from the run."},
        {"All at once", Panel::AllAtOnce,
         "The same output as a GPU computes it: one thread per output pixel, in 16x16 blocks, as many blocks at "
         "once as the SMs can hold."},
        {"Channels", Panel::Channels,
         "A CNN layer: C input channels and K filters of C x R x S. Every output map reads every input channel. "
         "With a per-channel picture: its R, G and B planes, each filtered on its own."},
        {"Pooling", Panel::Pooling, "2x2 max pooling: keep the largest value of each 2x2 block; the map shrinks 4x."},
        {"Trained channels", Panel::Trained,
         "One output map of a trained network's second convolution, built from its 32 input channels: each "
         "channel's partial map, their running sum, the bias, ReLU. Weights learned on Fashion-MNIST."},
    };
    draw_panel_tabs("##conv_panels", kTabs, panel_, select_panel_,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse, [this](Panel panel) {
                        switch (panel) {
                            case Panel::Sliding:
                                draw_sliding_panel();
                                break;
                            case Panel::AllAtOnce:
                                draw_all_at_once_panel();
                                break;
                            case Panel::Channels:
                                draw_channels_panel();
                                break;
                            case Panel::Pooling:
                                draw_pooling_panel();
                                break;
                            case Panel::Trained:
                                draw_trained_panel();
                                break;
                        }
                    });
}

bool Conv2dView::draw_result_note(bool layer) {
    const ConvMeasurement* m = layer ? layer_result_.get() : result_.get();
    if (!m) {
        ImGui::TextColored(kMutedColour, "%s",
                           host_.jobs->busy() || run_on_step_ ? "measuring: the picture appears when the run ends"
                           : layer ? "nothing measured in CNN-layer mode yet: tick 'CNN layer' in Controls and Run"
                                   : "nothing measured yet: press Run (R)");
        if (!layer && params_.layer_mode)
            ImGui::TextColored(kMutedColour, "This tab shows one channel: untick 'CNN layer' in Controls and Run.");
        return false;
    }
    return true;
}

// [SECTION] sliding window

void Conv2dView::draw_play_controls() {
    const float fs = ImGui::GetFontSize();
    if (ImGui::Button(playing_ ? "Pause" : "Play", {fs * 3.6f, 0})) playing_ = !playing_;
    hover_tip("Slide the filter along the rows, one output position after another.");
    ImGui::SameLine();
    if (ImGui::Button("Step")) {
        playing_ = false;
        position_ = std::floor(position_) + 1.0;
        if (position_ >= static_cast<double>(positions())) position_ = 0.0;
    }
    hover_tip("One position forward.");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(fs * 9.0f);
    const float whole = static_cast<float>(std::max<int64_t>(positions(), 2));
    ImGui::SliderFloat("##speed", &speed_, 1.0f, whole, "%.0f positions/s",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    hover_tip(
        "From one position per second (read every number) up to the whole image in one second. The "
        "animation is a picture of the idea; the timings in the Timing window are the real ones.");
    ImGui::SameLine();
    int pos = static_cast<int>(position_);
    ImGui::SetNextItemWidth(-1);
    if (ImGui::SliderInt("##scrub", &pos, 0, static_cast<int>(std::max<int64_t>(positions() - 1, 0)), "position %d",
                         ImGuiSliderFlags_AlwaysClamp))
        position_ = pos;
    hover_tip("Scrub to any output position.");
}

namespace {

// The sliding window's outline: a square of `side` around `centre`, a bright line over a dark one.
void draw_window_marker(ImDrawList* dl, ImVec2 centre, float side, ImU32 colour) {
    const float t = std::max(2.0f, ImGui::GetFontSize() * 0.18f);
    const ImVec2 a{centre.x - side * 0.5f, centre.y - side * 0.5f}, b{centre.x + side * 0.5f, centre.y + side * 0.5f};
    dl->AddRect(a, b, IM_COL32(0, 0, 0, 200), 0.0f, 0, t + 2.0f);
    dl->AddRect(a, b, colour, 0.0f, 0, t);
}

}  // namespace

void Conv2dView::draw_input_with_window(const core::Conv2dRun& run, int64_t p, int64_t q, ImVec2 box) {
    const core::Conv2dDesc& d = run.desc;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const ImVec2 sz = fit(static_cast<float>(d.width), static_cast<float>(d.height), box);
    if (sz.x <= 0) return;
    const ImVec2 at{o.x + (box.x - sz.x) * 0.5f, o.y};
    image_at(input_tex_.id(), at, sz);
    hover_tip(per_channel_result()
                  ? "The input every backend received: a colour picture as three planes R, G, B (each 0 to 1). "
                    "The window visits every position of the R plane, then of G, then of B; the zoom shows the "
                    "current plane's values. Outside the picture, zero padding reads 0."
                  : "The input every backend received (grayscale, 0 black to 1 white). The yellow square is the "
                    "filter's window at the current position; outside the picture, zero padding reads 0.");
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float s = sz.x / static_cast<float>(d.width);
    const float x0 = at.x + static_cast<float>(q * d.stride - d.pad()) * s;
    const float y0 = at.y + static_cast<float>(p * d.stride - d.pad()) * s;
    float side = static_cast<float>(d.kernel) * s;
    const float cx = x0 + side * 0.5f, cy = y0 + side * 0.5f;
    // A 3-pixel window on a 512-pixel picture is smaller than a screen pixel: guide lines and a
    // thick outline at least a text line wide, dark-edged so it shows on white and on black, keep it
    // findable from the back of a room.
    const float fs = ImGui::GetFontSize();
    dl->AddLine({at.x, cy}, {at.x + sz.x, cy}, IM_COL32(255, 210, 60, 120), std::max(1.0f, fs * 0.08f));
    dl->AddLine({cx, at.y}, {cx, at.y + sz.y}, IM_COL32(255, 210, 60, 120), std::max(1.0f, fs * 0.08f));
    draw_window_marker(dl, {cx, cy}, std::max(side, fs * 1.2f), IM_COL32(255, 210, 60, 255));
    ImGui::SetCursorScreenPos({o.x, o.y + box.y});
}

void Conv2dView::draw_output_filling(const core::Conv2dRun& run, int64_t p, int64_t q, ImVec2 box) {
    const core::Conv2dDesc& d = run.desc;
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float P = static_cast<float>(d.out_height()), Q = static_cast<float>(d.out_width());
    const ImVec2 sz = fit(Q, P, box);
    if (sz.x <= 0 || !output_tex_) return;
    const ImVec2 at{o.x + (box.x - sz.x) * 0.5f, o.y};
    image_at(output_tex_->rgba_texture(), at, sz);
    hover_tip(("Output, blue below zero, white at zero, " + std::string(diverging_positive_word()) +
               " above. Showing: " + display_note_ +
               ". Positions the window has not reached yet are dimmed.")
                  .c_str());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float s = sz.x / Q;
    const ImU32 dim = IM_COL32(12, 12, 16, 175);
    const float row_y0 = at.y + static_cast<float>(p) * s, row_y1 = row_y0 + s;
    dl->AddRectFilled({at.x + static_cast<float>(q + 1) * s, row_y0}, {at.x + sz.x, row_y1}, dim);
    dl->AddRectFilled({at.x, row_y1}, {at.x + sz.x, at.y + sz.y}, dim);
    const float pulse = 0.6f + 0.4f * std::sin(anim_time_ * 6.0f);
    const float cx = at.x + (static_cast<float>(q) + 0.5f) * s, cy = row_y0 + s * 0.5f;
    draw_window_marker(dl, {cx, cy}, std::max(s, ImGui::GetFontSize() * 1.2f),
                       ImGui::ColorConvertFloat4ToU32({1.0f, 0.82f, 0.24f, pulse}));
    ImGui::SetCursorScreenPos({o.x, o.y + box.y});
}

void Conv2dView::draw_window_zoom(const core::Conv2dRun& run, int64_t p, int64_t q, ImVec2 size) {
    const core::Conv2dDesc& d = run.desc;
    // The current plane (always 0 in grayscale): its input values and its output.
    const int64_t n = position_channel();
    const bool rgb = per_channel_result();
    const float* input = run.input.ptr() + n * d.height * d.width;
    const float* output = run.reference_output.ptr() + n * d.filters * d.out_height() * d.out_width();
    const ImVec4 tint = rgb ? channel_tint(n) : ImVec4(1, 1, 1, 1);
    const int64_t R = d.kernel;
    const float fs = ImGui::GetFontSize();
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const float sym = fs * 1.4f;  // room for "x" and "="
    const float cell = std::floor(
        std::min((size.x - 2 * sym) / static_cast<float>(3 * R), (size.y - 3.2f * lh) / static_cast<float>(R)));
    if (cell < 3) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float grid = cell * static_cast<float>(R);
    const float top = o.y + lh;
    const float xs[3] = {o.x, o.x + grid + sym, o.x + 2 * (grid + sym)};
    const std::string input_title = rgb ? std::string(kChannelNames[n]) + " plane under the window"
                                        : std::string("input under the window");
    const std::string input_short = rgb ? std::string("input ") + kChannelNames[n] : std::string("input");
    const char* titles[3] = {input_title.c_str(), "filter", "products"};
    for (int g = 0; g < 3; ++g) {
        const char* t = titles[g];
        const ImVec2 ts = ImGui::CalcTextSize(t);
        const char* shown = ts.x <= grid + sym ? t : (g == 0 ? input_short.c_str() : t);
        const float tw = ImGui::CalcTextSize(shown).x;
        dl->AddText({xs[g] + std::max(0.0f, (grid - tw) * 0.5f), o.y}, IM_COL32(190, 190, 195, 255), shown);
    }
    dl->AddText({xs[1] - sym * 0.7f, top + grid * 0.5f - fs * 0.5f}, IM_COL32(230, 230, 230, 255), "x");
    dl->AddText({xs[2] - sym * 0.7f, top + grid * 0.5f - fs * 0.5f}, IM_COL32(230, 230, 230, 255), "=");

    const float* filt = run.filters.ptr();
    float frange = 0.0f, prange = 0.0f;
    std::vector<float> in_v(static_cast<std::size_t>(R * R)), prod(static_cast<std::size_t>(R * R));
    std::vector<bool> padded(static_cast<std::size_t>(R * R));
    for (int64_t r = 0; r < R; ++r) {
        for (int64_t c = 0; c < R; ++c) {
            const std::size_t i = static_cast<std::size_t>(r * R + c);
            const int64_t y = p * d.stride + r - d.pad(), x = q * d.stride + c - d.pad();
            padded[i] = y < 0 || y >= d.height || x < 0 || x >= d.width;
            in_v[i] = padded[i] ? 0.0f : input[y * d.width + x];
            prod[i] = in_v[i] * filt[i];
            frange = std::max(frange, std::fabs(filt[i]));
            prange = std::max(prange, std::fabs(prod[i]));
        }
    }
    for (int64_t r = 0; r < R; ++r) {
        for (int64_t c = 0; c < R; ++c) {
            const std::size_t i = static_cast<std::size_t>(r * R + c);
            const float fx = static_cast<float>(c) * cell, fy = top + static_cast<float>(r) * cell;
            // input: its own gray level (per channel, shades of the plane's colour); padding hatched
            // dark so "reads 0" is visible
            ImVec2 a{xs[0] + fx, fy};
            const float lvl = std::clamp(in_v[i], 0.0f, 1.0f) * 255.0f;
            const ImU32 bg = padded[i] ? IM_COL32(45, 30, 50, 255)
                                       : IM_COL32(static_cast<int>(lvl * tint.x), static_cast<int>(lvl * tint.y),
                                                  static_cast<int>(lvl * tint.z), 255);
            dl->AddRectFilled(a, {a.x + cell, a.y + cell}, bg);
            if (padded[i]) dl->AddLine(a, {a.x + cell, a.y + cell}, IM_COL32(120, 90, 130, 255));
            cell_text(dl, a, cell, bg, in_v[i]);
            a = {xs[1] + fx, fy};
            const ImU32 fb = diverging_colour(filt[i], frange);
            dl->AddRectFilled(a, {a.x + cell, a.y + cell}, fb);
            cell_text(dl, a, cell, fb, filt[i]);
            a = {xs[2] + fx, fy};
            const ImU32 pb = diverging_colour(prod[i], prange);
            dl->AddRectFilled(a, {a.x + cell, a.y + cell}, pb);
            cell_text(dl, a, cell, pb, prod[i]);
        }
    }
    for (int g = 0; g < 3; ++g)
        dl->AddRect({xs[g], top}, {xs[g] + grid, top + grid}, IM_COL32(255, 210, 60, g == 0 ? 255 : 110), 0.0f, 0,
                    g == 0 ? 2.0f : 1.0f);
    // The sum written with the shared per-output formula; the reference value beside it is what
    // cpu-scalar wrote to the output, so the two agreeing is itself a check.
    const float sum = hd::conv2d_point(input, filt, 1, d.height, d.width, R, d.pad(), d.stride, p, q);
    const float ref = output[p * d.out_width() + q];
    ImGui::SetCursorScreenPos({o.x, top + grid + 4});
    ImGui::Text("sum of the %lld products = %.4f", static_cast<long long>(R * R), sum);
    if (rgb)
        ImGui::TextColored(kAccentColour, "-> output %s[%lld][%lld] = %.4f", kChannelNames[n],
                           static_cast<long long>(p), static_cast<long long>(q), ref);
    else
        ImGui::TextColored(kAccentColour, "-> output[%lld][%lld] = %.4f", static_cast<long long>(p),
                           static_cast<long long>(q), ref);
    hover_tip(
        "The value cpu-scalar stored at this output position in the real run. No other output position "
        "was needed to compute it.");
}

void Conv2dView::draw_sliding_panel() {
    if (!draw_result_note(false)) return;
    const core::Conv2dRun& run = result_->run;
    const core::Conv2dDesc& d = run.desc;
    draw_play_controls();
    int64_t p = 0, q = 0;
    position_pq(p, q);
    const ImGuiStyle& st = ImGui::GetStyle();
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float foot = lh * 3.0f;
    const float h = std::max(avail.y - foot - lh, lh * 4);
    // Wide canvas: input, zoom and output side by side. Tall canvas (presenter mode, a narrow
    // window): input and output side by side on top, as large as the width allows, and the zoom
    // across the whole width under them, so neither picture shrinks to a third of the width.
    const bool stacked = avail.y > avail.x * 0.55f;
    const float zoom_w = stacked ? avail.x : std::floor(avail.x * 0.40f);
    const float pic_w = stacked ? std::floor((avail.x - st.ItemSpacing.x) / 2.0f)
                                : std::floor((avail.x - zoom_w - 2 * st.ItemSpacing.x) / 2.0f);
    const float pic_h = stacked ? std::floor(std::min(pic_w, (h - lh) * 0.62f)) : h;
    const float zoom_h = stacked ? h - pic_h - lh : h + lh;

    const bool rgb = per_channel_result();
    const int64_t n = position_channel();
    ImGui::BeginGroup();
    if (rgb)
        ImGui::Text("input R, G, B %lld x %lld", static_cast<long long>(d.height), static_cast<long long>(d.width));
    else
        ImGui::Text("input %lld x %lld", static_cast<long long>(d.height), static_cast<long long>(d.width));
    draw_input_with_window(run, p, q, {pic_w, pic_h});
    ImGui::EndGroup();
    ImGui::SameLine();
    auto zoom = [&] {
        ImGui::BeginGroup();
        const ImVec2 zo = ImGui::GetCursorScreenPos();
        draw_window_zoom(run, p, q, {zoom_w, zoom_h});
        ImGui::SetCursorScreenPos(zo);
        ImGui::Dummy({zoom_w, zoom_h});
        ImGui::EndGroup();
    };
    if (!stacked) {
        zoom();
        ImGui::SameLine();
    }
    ImGui::BeginGroup();
    if (rgb)
        ImGui::Text("output %s %lld x %lld", kChannelNames[n], static_cast<long long>(d.out_height()),
                    static_cast<long long>(d.out_width()));
    else
        ImGui::Text("output %lld x %lld", static_cast<long long>(d.out_height()),
                    static_cast<long long>(d.out_width()));
    draw_output_filling(run, p, q, {pic_w, pic_h});
    ImGui::EndGroup();
    if (stacked) zoom();

    const std::string where = core::format_count(static_cast<int64_t>(position_) + 1) + " of " +
                              core::format_count(positions());
    if (rgb) {
        ImGui::TextColored(channel_tint(n), "Position %s: channel %s, %lld of 3.", where.c_str(), kChannelNames[n],
                           static_cast<long long>(n + 1));
        ImGui::SameLine();
    }
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    if (rgb)
        ImGui::TextWrapped(
            "The same %lldx%lld filter visits every position of the R plane, then of G, then of B: each plane is "
            "filtered on its own. Each position reads only the values under its window and writes only its own "
            "output pixel: none waits for another.",
            static_cast<long long>(d.kernel), static_cast<long long>(d.kernel));
    else
        ImGui::TextWrapped(
            "Position %s. Each position reads only the %lldx%lld input values under the window and writes only "
            "its own output pixel: none waits for another. Cross-correlation, as in CNNs: the filter is not "
            "flipped.",
            where.c_str(), static_cast<long long>(d.kernel), static_cast<long long>(d.kernel));
    ImGui::PopStyleColor();
}

// [SECTION] all at once

void Conv2dView::draw_block_plane(const BlockSchedule& s, GLuint texture, ImVec2 o, ImVec2 sz, int64_t first_block,
                                  int64_t done, int64_t now_end) {
    const float Q = static_cast<float>(result_->run.desc.out_width());
    image_at(texture, o, sz);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float px = sz.x / Q;  // screen pixels per output pixel
    const float bw = px * BlockSchedule::kTile;
    const int64_t per_plane = s.blocks_x * s.blocks_y;
    // A linear range of block indices [a, b) as at most three rectangles (partial row, full rows,
    // partial row), so a 16,384-block grid costs a few draw calls, not thousands. Indices are the
    // grid's (x fastest, then y, then the plane z), clipped to this plane.
    auto fill = [&](int64_t a, int64_t b, ImU32 col) {
        a = std::clamp<int64_t>(a - first_block, 0, per_plane);
        b = std::clamp<int64_t>(b - first_block, 0, per_plane);
        if (b <= a) return;
        auto rect = [&](int64_t row, int64_t c0, int64_t c1, int64_t rows) {
            ImVec2 p0{o.x + static_cast<float>(c0) * bw, o.y + static_cast<float>(row) * bw};
            ImVec2 p1{std::min(o.x + static_cast<float>(c1) * bw, o.x + sz.x),
                      std::min(o.y + static_cast<float>(row + rows) * bw, o.y + sz.y)};
            dl->AddRectFilled(p0, p1, col);
        };
        const int64_t bx = s.blocks_x;
        int64_t ra = a / bx, ca = a % bx, rb = b / bx, cb = b % bx;
        if (ra == rb) {
            rect(ra, ca, cb, 1);
            return;
        }
        if (ca > 0) {
            rect(ra, ca, bx, 1);
            ++ra;
        }
        if (rb > ra) rect(ra, 0, bx, rb - ra);
        if (cb > 0) rect(rb, 0, cb, 1);
    };
    fill(now_end, s.blocks, IM_COL32(12, 12, 16, 225));
    fill(done, now_end, IM_COL32(80, 220, 120, 110));
    if (bw >= 4.0f) {
        for (int64_t i = 0; i <= s.blocks_x; ++i) {
            const float x = std::min(o.x + static_cast<float>(i) * bw, o.x + sz.x);
            dl->AddLine({x, o.y}, {x, o.y + sz.y}, IM_COL32(0, 0, 0, 90));
        }
        for (int64_t j = 0; j <= s.blocks_y; ++j) {
            const float y = std::min(o.y + static_cast<float>(j) * bw, o.y + sz.y);
            dl->AddLine({o.x, y}, {o.x + sz.x, y}, IM_COL32(0, 0, 0, 90));
        }
    }
    dl->AddRect(o, {o.x + sz.x, o.y + sz.y}, IM_COL32(120, 120, 130, 255));
}

void Conv2dView::draw_block_waves(const core::Conv2dRun& run, const BlockSchedule& s, ImVec2 box) {
    const core::Conv2dDesc& d = run.desc;
    const float P = static_cast<float>(d.out_height()), Q = static_cast<float>(d.out_width());
    const ImVec2 o = ImGui::GetCursorScreenPos();
    if (!output_tex_ || s.blocks == 0) return;
    // Per channel the grid's z covers the three planes: draw each with its share of the blocks.
    struct Plane {
        GLuint texture;
        int64_t first_block;
        const char* label;
    };
    std::vector<Plane> planes;
    const int64_t per_plane = s.blocks_x * s.blocks_y;
    if (per_channel_result()) {
        for (int64_t n = 0; n < 3; ++n)
            if (plane_out_tex_[n]) planes.push_back({plane_out_tex_[n]->rgba_texture(), n * d.filters * per_plane,
                                                     kChannelNames[n]});
    }
    if (planes.empty()) planes.push_back({output_tex_->rgba_texture(), 0, nullptr});
    // The arrangement (columns x rows) that gives each plane the most room.
    const float gap = ImGui::GetFontSize() * 0.5f;
    const int64_t count = static_cast<int64_t>(planes.size());
    ImVec2 sz{0, 0};
    int64_t cols = 1;
    for (int64_t c = 1; c <= count; ++c) {
        const int64_t rows = (count + c - 1) / c;
        const ImVec2 cell{(box.x - gap * static_cast<float>(c - 1)) / static_cast<float>(c),
                          (box.y - gap * static_cast<float>(rows - 1)) / static_cast<float>(rows)};
        const ImVec2 f = fit(Q, P, cell);
        if (f.x > sz.x) {
            sz = f;
            cols = c;
        }
    }
    if (sz.x <= 0) return;
    // One wave per 0.9 s, then a pause with everything done, then again.
    const int64_t phases = s.waves + 2;
    const int64_t phase = static_cast<int64_t>(anim_time_ / 0.9f) % phases;
    const int64_t done = std::min(phase, s.waves) * s.wave;  // blocks finished before this wave
    const int64_t now_end = phase < s.waves ? std::min(done + s.wave, s.blocks) : done;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float fs = ImGui::GetFontSize();
    ImVec2 extent{0, 0};
    for (int64_t i = 0; i < count; ++i) {
        const ImVec2 at{o.x + static_cast<float>(i % cols) * (sz.x + gap),
                        o.y + static_cast<float>(i / cols) * (sz.y + gap)};
        draw_block_plane(s, planes[i].texture, at, sz, planes[i].first_block, done, now_end);
        if (planes[i].label) {
            const ImVec2 ls = ImGui::CalcTextSize(planes[i].label);
            const ImVec2 a{at.x + sz.x - ls.x - 8, at.y + 4};
            dl->AddRectFilled({a.x - 3, a.y - 1}, {a.x + ls.x + 3, a.y + fs + 1}, IM_COL32(20, 22, 26, 220));
            dl->AddText(a, ImGui::ColorConvertFloat4ToU32(channel_tint(i)), planes[i].label);
        }
        extent = {std::max(extent.x, at.x + sz.x - o.x), std::max(extent.y, at.y + sz.y - o.y)};
    }
    ImGui::SetCursorScreenPos(o);
    ImGui::InvisibleButton("##blocks", {std::max(extent.x, 1.0f), std::max(extent.y, 1.0f)});
    hover_tip(count > 1 ? "Each square is one thread block of 16 x 16 threads; each thread computes one output pixel. "
                          "The grid has one layer of blocks per colour plane (R, G, B), run one after another as "
                          "SMs free up. Green: the blocks resident in this wave; dark: waiting; clear: done."
                        : "Each square is one thread block of 16 x 16 threads; each thread computes one output pixel. "
                          "Green: the blocks resident in this wave; dark: waiting for a free SM; clear: done.");
    const std::string wave = phase < s.waves ? "wave " + std::to_string(phase + 1) + " of " + std::to_string(s.waves)
                                             : "all " + std::to_string(s.waves) + " wave(s) done";
    dl->AddRectFilled({o.x + 4, o.y + 4}, {o.x + 8 + ImGui::CalcTextSize(wave.c_str()).x, o.y + 6 + fs},
                      IM_COL32(20, 22, 26, 220));
    dl->AddText({o.x + 6, o.y + 5}, IM_COL32(240, 240, 240, 255), wave.c_str());
}

void Conv2dView::draw_all_at_once_panel() {
    if (!draw_result_note(false)) return;
    // Two views of the same launch: the grid of blocks in waves, or one block from the inside.
    if (ImGui::RadioButton("blocks and waves", !show_block_trace_)) show_block_trace_ = false;
    ImGui::SameLine();
    if (ImGui::RadioButton("inside one block (traced)", show_block_trace_)) show_block_trace_ = true;
    hover_tip("One block of the real tiled CUDA kernel run on the simulator with every memory access recorded: who "
              "loads which input, the barrier, each thread's window, the shared-memory bank passes.");
    if (show_block_trace_) {
        // Its own scrolling child: the canvas tab itself does not scroll, and the counts sit below.
        ImGui::BeginChild("##block_trace", ImGui::GetContentRegionAvail(), false, ImGuiWindowFlags_NavFlattened);
        draw_block_trace(ImGui::GetContentRegionAvail().x - ImGui::GetStyle().ScrollbarSize, true);
        ImGui::EndChild();
        return;
    }
    const core::Conv2dRun& run = result_->run;
    const core::Conv2dDesc& d = run.desc;
    const BlockSchedule s = block_schedule(d.out_height(), d.out_width(), d.batch * d.filters,
                                           static_cast<int>(d.kernel), static_cast<int>(d.stride));
    // Three parts: the grid of blocks in waves (left, as tall as the tab), one SM of the wave up
    // close, and the text. On a wide canvas (presenter mode) the SM and the text stand side by
    // side; otherwise the SM sits above the text, which scrolls in its own child.
    const ImGuiStyle& st = ImGui::GetStyle();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float h = std::max(avail.y - 2.0f, ImGui::GetFontSize() * 6.0f);
    const float side = std::floor(std::min(h, avail.x * 0.36f));
    const float rest = std::max(avail.x - side - st.ItemSpacing.x, ImGui::GetFontSize() * 10.0f);
    const bool wide = rest > h * 2.4f;

    ImGui::BeginGroup();
    draw_block_waves(run, s, {side, h});
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    if (wide) {
        const float sm_w = std::floor(rest * 0.5f);
        ImGui::BeginGroup();
        draw_sm_warps(s, {sm_w, h});
        ImGui::EndGroup();
        ImGui::SameLine();
        draw_all_at_once_text(run, s, rest - sm_w - st.ItemSpacing.x);
    } else {
        // The picture first; the text keeps at least three lines, and scrolls.
        const float lh = ImGui::GetTextLineHeightWithSpacing();
        draw_sm_warps(s, {rest, std::floor(std::max(std::min(h * 0.75f, h - 3.0f * lh), lh * 3.0f))});
        draw_all_at_once_text(run, s, rest);
    }
    ImGui::EndGroup();
}

void Conv2dView::draw_all_at_once_text(const core::Conv2dRun& run, const BlockSchedule& s, float width) {
    const core::Conv2dDesc& d = run.desc;
    ImGui::BeginChild("##all_at_once_text", {width, std::max(ImGui::GetContentRegionAvail().y, 1.0f)}, false,
                      ImGuiWindowFlags_NoScrollbar);
    ImGui::PushTextWrapPos(0.0f);  // the child's right edge
    // In parts when the column is shorter than the text (app/widgets/paged_text.h): a scroll box inside
    // the canvas hid the waves' arithmetic below its edge on a laptop.
    const auto part = [&](int i) {
    switch (i) {
    case 0:
    if (s.planes > 1) {
        ImGui::TextWrapped("Output %lld planes of %lld x %lld = %s pixels, one thread each.",
                           static_cast<long long>(s.planes), static_cast<long long>(d.out_height()),
                           static_cast<long long>(d.out_width()),
                           core::format_count(s.planes * d.out_height() * d.out_width()).c_str());
        ImGui::TextWrapped(
            "The tiled CUDA kernel groups them into %lld x %lld blocks per plane x %lld planes = %s blocks of "
            "16 x 16 = 256 threads (%s threads in all).",
            static_cast<long long>(s.blocks_x), static_cast<long long>(s.blocks_y), static_cast<long long>(s.planes),
            core::format_count(s.blocks).c_str(), core::format_count(s.threads).c_str());
    } else {
        ImGui::TextWrapped("Output %lld x %lld = %s pixels, one thread each.", static_cast<long long>(d.out_height()),
                           static_cast<long long>(d.out_width()),
                           core::format_count(d.out_height() * d.out_width()).c_str());
        ImGui::TextWrapped(
            "The tiled CUDA kernel groups them into %lld x %lld = %s blocks of 16 x 16 = 256 threads "
            "(%s threads in all).",
            static_cast<long long>(s.blocks_x), static_cast<long long>(s.blocks_y),
            core::format_count(s.blocks).c_str(), core::format_count(s.threads).c_str());
    }
    break;
    case 1:
    // The answer (how many waves) before its derivation (how many blocks an SM holds): on a
    // projector the column is cut into parts, and the first must hold the number the step is about.
    ImGui::Spacing();
    if (s.waves <= 1)
        ImGui::TextColored(kAccentColour, "%s",
                           "The whole output fits in one wave: every block is resident at once, and each SM "
                           "interleaves its warps, issuing a few warp instructions a cycle.");
    else
        ImGui::TextColored(kAccentColour, "%s blocks / %s per wave = %lld waves%s", core::format_count(s.blocks).c_str(),
                           core::format_count(s.wave).c_str(), static_cast<long long>(s.waves),
                           s.example ? " (on the H100 example below)." : ".");
    break;
    case 2:
    ImGui::Spacing();
    if (s.example) {
        ImGui::TextColored(kWarnColour, "No GPU on this machine.");
        hover_tip(s.why.c_str());
        ImGui::TextWrapped(
            "An example, not this machine: an H100 SXM5 has %d SMs (published spec; the PCIe card 114). Our tiled "
            "kernel uses about %d registers per thread (as nvcc reported it), so an SM holds about %d blocks of 256 "
            "threads at once and about %s blocks are resident together.",
            s.sm_count, s.registers, s.blocks_per_sm, core::format_count(s.wave).c_str());
    } else {
        ImGui::TextColored(kOkColour, "This machine's GPU: %s", s.gpu_name.c_str());
        if (s.occupancy_estimated)
            ImGui::TextWrapped(
                "%d SMs x about %d resident blocks of 256 threads = %s blocks at once (estimated from "
                "threads, blocks and about %d registers per thread; the device's occupancy query failed).",
                s.sm_count, s.blocks_per_sm, core::format_count(s.wave).c_str(), s.registers);
        else
            ImGui::TextWrapped(
                "%d SMs x %d resident blocks of 256 threads = %s blocks at once (the device's answer for "
                "this kernel: cudaOccupancyMaxActiveBlocksPerMultiprocessor).",
                s.sm_count, s.blocks_per_sm, core::format_count(s.wave).c_str());
    }
    // Where the SM picture's numbers come from. Its point in words (resident is not executing, the
    // schedulers pick ready warps) is the step text's and the picture's own header, so it is not
    // repeated here: repeated, this column scrolled at every window size.
    break;
    default: {
    const int schedulers = core::warp_schedulers_per_sm(s.cc_major, s.cc_minor);
    ImGui::Spacing();
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped(
        "%d schedulers and %d FP32 lanes per SM: published for compute capability %d.%d%s (CUDA C++ Programming "
        "Guide).",
        schedulers, core::fp32_lanes_per_sm(s.cc_major, s.cc_minor), s.cc_major, s.cc_minor,
        s.example ? ", the H100 example" : "");
    ImGui::PopStyleColor();
    }
    }
    };
    draw_paged_parts(4, part, all_at_once_part_, /*arrow_keys=*/false);
    ImGui::PopTextWrapPos();
    ImGui::EndChild();
}

}  // namespace gpulab::app
