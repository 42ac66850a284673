// The results tab: test accuracy of the last Train run, its confusion matrix (rows: the true class,
// columns: the answer; a cell's shade is its share of the row, the diagonal outlined), held-out
// pictures with the answer and its confidence (a tick and green when right, a cross and red when
// wrong), and a dropped picture as the model sees it, with its three most likely classes. The
// colour-blind palette gives the matrix one blue, dark to light (palette_colours.h).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "measure/format.h"
#include "train_draw.h"
#include "train_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// Short names for the matrix's headers.
const char* short_name(int c) {
    static const char* const names[10] = {"T-shirt", "Trouser", "Pullover", "Dress", "Coat",
                                          "Sandal",  "Shirt",   "Sneaker",  "Bag",   "Boot"};
    return c >= 0 && c < 10 ? names[c] : "?";
}

void draw_confusion(const train::ConfusionMatrix& m, float side) {
    const int n = m.classes();
    const float lh = ImGui::GetTextLineHeight();
    const float label_w = lh * 5.0f, cell = (side - label_w) / static_cast<float>(n);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), muted = ImGui::GetColorU32(kMutedColour);
    for (int p = 0; p < n; ++p) {  // column headers, shortened to fit
        std::string s = short_name(p);
        while (s.size() > 1 && ImGui::CalcTextSize(s.c_str()).x > cell - 2) s.pop_back();
        dl->AddText({o.x + label_w + p * cell + 1, o.y}, muted, s.c_str());
    }
    const float top = o.y + lh * 1.3f;
    const bool cb = colour_blind_palette();
    for (int t = 0; t < n; ++t) {
        dl->AddText({o.x, top + t * cell + (cell - lh) / 2}, muted, short_name(t));
        const double row = static_cast<double>(std::max<std::int64_t>(m.row_total(t), 1));
        for (int p = 0; p < n; ++p) {
            const std::int64_t k = m.count(t, p);
            const float share = static_cast<float>(k / row);
            const ImVec2 a{o.x + label_w + p * cell, top + t * cell};
            // Colour-blind palette: one sequential map for every cell, the square root of the share so
            // that a few confusions still show; default: green diagonal, red elsewhere, as opacity.
            const Rgb8 seq = sequential_rgb(std::sqrt(share));
            const ImU32 fill = cb ? to_u32(seq)
                               : t == p ? ImGui::ColorConvertFloat4ToU32({0.25f, 0.75f, 0.35f, 0.15f + 0.85f * share})
                                        : ImGui::ColorConvertFloat4ToU32({0.95f, 0.35f, 0.30f, std::min(1.0f, 0.1f + 3.0f * share)});
            if (k > 0) dl->AddRectFilled(a, {a.x + cell - 1, a.y + cell - 1}, fill);
            dl->AddRect(a, {a.x + cell, a.y + cell}, IM_COL32(50, 52, 60, 255));
            // The diagonal (right answers) outlined: its place, not only its colour, says what it is.
            if (t == p) dl->AddRect({a.x + 1, a.y + 1}, {a.x + cell - 2, a.y + cell - 2}, IM_COL32(235, 235, 240, 200), 0.0f, 0, 1.5f);
            if (k > 0) {
                const std::string s = std::to_string(k);
                const ImVec2 ts = ImGui::CalcTextSize(s.c_str());
                // Dark digits on the light end of the map, light digits elsewhere.
                const bool light_cell = cb && 0.3f * seq.r + 0.59f * seq.g + 0.11f * seq.b > 140.0f;
                if (ts.x < cell - 2)
                    dl->AddText({a.x + (cell - ts.x) / 2, a.y + (cell - ts.y) / 2}, light_cell ? IM_COL32(10, 12, 20, 255) : text,
                                s.c_str());
            }
        }
    }
    ImGui::Dummy({side, lh * 1.3f + n * cell + 4});
    // Wrapped at the matrix's width: the pictures sit to its right.
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + side);
    ImGui::TextColored(kMutedColour, "rows: the true class; columns: the network's answer; outlined: right answers");
    ImGui::PopTextWrapPos();
}

}  // namespace

void TrainView::draw_results_panel(float width) {
    if (!data_) {
        draw_data_missing();
        return;
    }
    if (!train_) {
        ImGui::TextColored(kMutedColour, "Nothing trained yet: press Train (R) on the Train tab, then come back.");
        return;
    }
    const train::Evaluation& e = train_->eval;
    ImGui::Text("Test accuracy: %.1f %% of %s held-out pictures (%s, %s pictures seen in training).",
                100.0 * e.accuracy(), core::format_count(e.confusion.total()).c_str(), train_->lane.engine.c_str(),
                core::format_count(train_->lane.images).c_str());
    int t = -1, p = -1;
    e.confusion.most_confused(t, p);
    if (t >= 0)
        ImGui::TextColored(kMutedColour, "Most often confused: %s taken for %s (%lld times).",
                           train::fashion_mnist_class_name(t), train::fashion_mnist_class_name(p),
                           static_cast<long long>(e.confusion.count(t, p)));
    // The matrix as large as the canvas's height allows too (its labels, cells and the caption under
    // it), so the last row is never below the edge on a laptop.
    const float tl = ImGui::GetTextLineHeight();
    const float n = static_cast<float>(e.confusion.classes());
    const float cell_fit = (ImGui::GetContentRegionAvail().y - tl * 1.3f - 4.0f - tl * 2.8f) / std::max(n, 1.0f);
    const float side = std::min({width * 0.48f, ImGui::GetFontSize() * 30, tl * 5.0f + n * std::max(cell_fit, tl * 1.3f)});
    ImGui::BeginGroup();
    draw_confusion(e.confusion, side);
    ImGui::EndGroup();
    ImGui::SameLine(0, ImGui::GetFontSize());
    ImGui::BeginGroup();
    // Held-out pictures with the answer and its confidence.
    const float avail = width - side - ImGui::GetFontSize() * 2;
    const int cols = 6;
    const float lh = ImGui::GetTextLineHeight();
    const float cw = avail / cols, pic = std::min(cw - 6, lh * 4.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const std::size_t shown = std::min<std::size_t>(e.first.size(), 18);
    const train::ImageSet& test = data_->test;
    for (std::size_t i = 0; i < shown; ++i) {
        const train::Prediction& pr = e.first[i];
        if (pr.index >= test.count) continue;
        const ImVec2 at{o.x + (i % cols) * cw, o.y + (i / cols) * (pic + lh * 2.4f)};
        draw_grey_picture(dl, test.pixels.data() + pr.index * test.rows * test.cols, test.rows, at, pic);
        const bool right = pr.predicted == pr.truth;
        // Two short lines under the picture, cut at the cell's edge: the answer, then its confidence
        // (and the true class when wrong).
        char buf[64];
        std::snprintf(buf, sizeof buf, right ? "%.0f%%" : "%.0f%%, is %s", 100.0 * pr.confidence, short_name(pr.truth));
        dl->PushClipRect(at, {at.x + cw - 4, at.y + pic + lh * 2.4f}, true);
        const ImU32 verdict = ImGui::GetColorU32(right ? kOkColour : kErrorColour);
        draw_status_mark(dl, {at.x, at.y + pic + 1}, lh, right ? Status::Ok : Status::Error, verdict);
        dl->AddText({at.x + lh * 1.1f, at.y + pic + 1}, verdict, short_name(pr.predicted));
        dl->AddText({at.x, at.y + pic + 1 + lh}, ImGui::GetColorU32(kMutedColour), buf);
        dl->PopClipRect();
    }
    const int rows = static_cast<int>((shown + cols - 1) / cols);
    ImGui::Dummy({avail, rows * (pic + lh * 2.4f)});
    ImGui::PushStyleColor(ImGuiCol_Text, kMutedColour);
    ImGui::TextWrapped("Under each picture: the answer (a tick: right; a cross: wrong), its confidence (softmax) and, "
                       "when wrong, the true class.");
    ImGui::PopStyleColor();
    ImGui::Spacing();
    // The dropped picture.
    if (!dropped_) {
        ImGui::TextWrapped("Drop a picture file on the window (PNG, JPG, ...): it is scaled to 28x28 grey like the "
                           "training pictures and classified.");
    } else {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float big = lh * 6.0f;
        draw_grey_picture(dl, dropped_->pixels.data(), dropped_->size, at, big);
        ImGui::Dummy({big, big});
        ImGui::SameLine();
        ImGui::BeginGroup();
        ImGui::TextWrapped("%s", dropped_->note.c_str());
        if (dropped_probs_.empty()) {
            ImGui::TextColored(kMutedColour, "Train first: the answer needs trained weights.");
        } else {
            std::vector<int> order(dropped_probs_.size());
            std::iota(order.begin(), order.end(), 0);
            std::sort(order.begin(), order.end(), [&](int a, int b) { return dropped_probs_[a] > dropped_probs_[b]; });
            for (std::size_t k = 0; k < std::min<std::size_t>(3, order.size()); ++k)
                ImGui::Text("%s: %.1f %%", train::fashion_mnist_class_name(order[k]), 100.0 * dropped_probs_[order[k]]);
        }
        ImGui::EndGroup();
    }
    ImGui::EndGroup();
}

}  // namespace gpulab::app
