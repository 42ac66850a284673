// The "where the time goes" tab: for every engine that ran in the race (or the last Train run),
// one bar of 100 % split into its layers' forward (solid) and backward (pale) time per picture,
// with the total per picture beside it, so engines of very different speeds compare by share.
// From the engines' own per-layer clocks (EpochReport::layer_ns summed over the run).
#include <algorithm>
#include <cstdio>

#include "measure/format.h"
#include "views/timing_plot.h"
#include "train_draw.h"
#include "train_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void TrainView::draw_layers_panel(float width) {
    std::vector<const train::LaneResult*> lanes;
    if (race_)
        for (const auto& l : race_->lanes)
            if (l.ran && l.images > 0 && l.layer_ns.size() == model_.layers.size()) lanes.push_back(&l);
    if (lanes.empty() && train_ && train_->lane.layer_ns.size() == model_.layers.size()) lanes.push_back(&train_->lane);
    ImGui::TextWrapped("Where the time goes: each engine's time per picture, split by layer (bright: forward, dark: "
                       "backward), measured by the engine's own clock around each layer%s.",
                       race_ ? " during the race" : " during the last Train run");
    if (lanes.empty()) {
        ImGui::TextColored(kMutedColour, "Nothing measured yet: press Race (R).");
        return;
    }
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const float name_w = lh * 7.0f, total_w = lh * 11.0f;
    const float bar_w = std::max(width - name_w - total_w, lh * 10);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (const train::LaneResult* l : lanes) {
        double total = 0.0, conv = 0.0;
        for (std::size_t i = 0; i < l->layer_ns.size(); ++i) {
            const double t = static_cast<double>(l->layer_ns[i].forward_ns + l->layer_ns[i].backward_ns);
            total += t;
            if (model_.layers[i].kind == train::LayerKind::Conv) conv += t;
        }
        const ImVec2 o = ImGui::GetCursorScreenPos();
        dl->AddText({o.x, o.y + lh * 0.3f}, backend_color(l->engine), l->engine.c_str());
        float x = o.x + name_w;
        const float y0 = o.y + 2, y1 = o.y + lh * 1.6f;
        for (std::size_t i = 0; i < l->layer_ns.size() && total > 0; ++i) {
            const train::Layer& layer = model_.layers[i];
            const float fw = static_cast<float>(l->layer_ns[i].forward_ns / total) * bar_w;
            const float bw = static_cast<float>(l->layer_ns[i].backward_ns / total) * bar_w;
            dl->AddRectFilled({x, y0}, {x + fw, y1}, layer_colour(layer.kind));
            dl->AddRectFilled({x + fw, y0}, {x + fw + bw, y1}, layer_colour(layer.kind, 0.45f));
            if (fw + bw > 1.5f) dl->AddLine({x + fw + bw, y0}, {x + fw + bw, y1}, IM_COL32(20, 20, 24, 255));
            const ImVec2 ts = ImGui::CalcTextSize(layer.name.c_str());
            if (ts.x + 4 < fw + bw) dl->AddText({x + 3, y0 + (y1 - y0 - ts.y) / 2}, IM_COL32(15, 15, 18, 255), layer.name.c_str());
            x += fw + bw;
        }
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s / picture, conv %.0f %%",
                      core::format_duration(static_cast<std::int64_t>(total / static_cast<double>(l->images))).c_str(),
                      100.0 * conv / std::max(total, 1.0));
        dl->AddText({o.x + name_w + bar_w + 6, o.y + lh * 0.3f}, ImGui::GetColorU32(ImGuiCol_Text), buf);
        ImGui::Dummy({width, lh * 1.8f});
    }
    // Legend: one swatch per layer kind.
    const ImVec2 o = ImGui::GetCursorScreenPos();
    float x = o.x;
    for (auto [kind, name] : {std::pair{train::LayerKind::Conv, "convolution"}, std::pair{train::LayerKind::Relu, "ReLU"},
                              std::pair{train::LayerKind::MaxPool, "max pool"}, std::pair{train::LayerKind::Dense, "dense"}}) {
        dl->AddRectFilled({x, o.y + 3}, {x + lh * 0.7f, o.y + lh - 3}, layer_colour(kind));
        dl->AddRectFilled({x + lh * 0.7f, o.y + 3}, {x + lh * 1.4f, o.y + lh - 3}, layer_colour(kind, 0.45f));
        dl->AddText({x + lh * 1.6f, o.y}, ImGui::GetColorU32(ImGuiCol_Text), name);
        x += lh * 1.6f + ImGui::CalcTextSize(name).x + lh;
    }
    ImGui::Dummy({width, lh});
    ImGui::TextColored(kMutedColour, "Each bar is 100 %% of that engine's time; the text beside it gives the total.");
}

}  // namespace gpulab::app
