// The model tab: every layer of the article's CNN as a box in a column, the tensor shape it hands
// on, its parameters, and its forward and backward work per picture as bars (the convolutions'
// share is the point), with the totals underneath. From train::ModelDesc, nothing hard-coded.
#include <algorithm>
#include <cstdio>

#include "measure/format.h"
#include "train_draw.h"
#include "train_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

const char* kind_name(train::LayerKind k) {
    switch (k) {
        case train::LayerKind::Conv: return "conv 3x3";
        case train::LayerKind::Relu: return "ReLU";
        case train::LayerKind::MaxPool: return "max pool 2x2";
        case train::LayerKind::Dense: return "dense";
    }
    return "";
}

std::string mflop(double flops) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", flops / 1e6);
    return buf;
}

}  // namespace

void TrainView::draw_model_panel(float width) {
    const train::ModelDesc& m = model_;
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    double max_flops = 1.0;
    for (const auto& l : m.layers) max_flops = std::max({max_flops, l.forward_flops(), l.backward_flops()});
    // Columns: box | output shape | parameters | forward bar | backward bar.
    const float box_w = std::min(width * 0.22f, lh * 9.0f), shape_x = box_w + lh, params_x = shape_x + lh * 6.0f;
    const float bars_x = params_x + lh * 5.5f, bar_w = std::max((width - bars_x - lh * 6.5f) / 2.0f, lh * 3.0f);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), muted = ImGui::GetColorU32(kMutedColour);
    dl->AddText({o.x + shape_x, o.y}, muted, "output");
    dl->AddText({o.x + params_x, o.y}, muted, "parameters");
    dl->AddText({o.x + bars_x, o.y}, muted, "forward MFLOP / picture");
    dl->AddText({o.x + bars_x + bar_w + lh * 3.2f, o.y}, muted, "backward MFLOP / picture");
    float y = o.y + lh * 1.2f;
    // Rows as tall as the canvas allows, between a line and a half and a bit over one: on a 768-pixel
    // laptop the whole model and the totals under it fit without scrolling.
    const float footer = lh * 3.4f;
    const float fit = (ImGui::GetContentRegionAvail().y - lh * 1.2f - footer) / static_cast<float>(m.layers.size() + 1);
    const float row = std::clamp(fit, lh * 1.1f, lh * 1.45f);
    // The input picture first.
    dl->AddRect({o.x, y}, {o.x + box_w, y + row - 4}, muted, 4.0f);
    dl->AddText({o.x + 6, y + 2}, text, "input picture");
    dl->AddText({o.x + shape_x, y + 2}, text, m.input.to_string().c_str());
    y += row;
    for (const auto& l : m.layers) {
        const ImU32 c = layer_colour(l.kind);
        dl->AddRectFilled({o.x, y}, {o.x + box_w, y + row - 4}, layer_colour(l.kind, 0.35f), 4.0f);
        dl->AddRect({o.x, y}, {o.x + box_w, y + row - 4}, c, 4.0f);
        const std::string label = l.name + "  " + kind_name(l.kind) +
                                  (l.kind == train::LayerKind::Conv || l.kind == train::LayerKind::Dense
                                       ? ", " + std::to_string(l.out.c)
                                       : std::string());
        dl->AddText({o.x + 6, y + 2}, text, label.c_str());
        dl->AddText({o.x + shape_x, y + 2}, text, l.out.to_string().c_str());
        const std::string params = l.has_params() ? core::format_count(l.weight_count + l.bias_count) : "-";
        dl->AddText({o.x + params_x, y + 2}, l.has_params() ? text : muted, params.c_str());
        const float fw = static_cast<float>(l.forward_flops() / max_flops) * bar_w;
        const float bw = static_cast<float>(l.backward_flops() / max_flops) * bar_w;
        dl->AddRectFilled({o.x + bars_x, y + 3}, {o.x + bars_x + std::max(fw, 1.0f), y + row - 7}, c);
        dl->AddText({o.x + bars_x + fw + 4, y + 2}, muted, mflop(l.forward_flops()).c_str());
        const float bx = o.x + bars_x + bar_w + lh * 3.2f;
        dl->AddRectFilled({bx, y + 3}, {bx + std::max(bw, 1.0f), y + row - 7}, layer_colour(l.kind, 0.6f));
        dl->AddText({bx + bw + 4, y + 2}, muted, mflop(l.backward_flops()).c_str());
        y += row;
    }
    ImGui::Dummy({width, y - o.y + 4});
    double conv_f = 0, all_f = 0;
    for (const auto& l : m.layers) {
        all_f += l.forward_flops() + l.backward_flops();
        if (l.kind == train::LayerKind::Conv) conv_f += l.forward_flops() + l.backward_flops();
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::Text("%s parameters in all. Per picture: %s MFLOP forward, %s MFLOP backward (arithmetic from the "
                "shapes); the convolutions do %.0f %% of it.",
                core::format_count(m.parameter_count).c_str(), mflop(m.forward_flops()).c_str(),
                mflop(m.backward_flops()).c_str(), 100.0 * conv_f / std::max(all_f, 1.0));
    ImGui::TextColored(kMutedColour,
                       "One epoch of 60,000 pictures is %.1f TFLOP (forward + backward); shapes are height x width x "
                       "channels, as Keras prints them.",
                       60000.0 * (m.forward_flops() + m.backward_flops()) / 1e12);
    ImGui::PopTextWrapPos();
}

}  // namespace gpulab::app
