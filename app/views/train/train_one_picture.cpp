// The Train tab's one test picture: what the trained network answers for it (the softmax
// probability of each of the 10 classes, as bars) and that picture's own loss, the cross-entropy
// -ln p(true class). The loss curve beside it is the mean of this number over a batch, so a student
// sees what the curve is made of. Computed from the last Train run's weights with a forward pass of
// the plain loop on this thread (one picture: milliseconds), as predict_dropped() does.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "measure/format.h"
#include "train/evaluation.h"
#include "train/learning_knobs.h"
#include "train_draw.h"
#include "train_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void TrainView::classify_probe() {
    probe_probs_.clear();
    probe_loss_ = 0.0;
    if (!data_ || !train_ || train_->lane.params.empty() || data_->test.count < 1) return;
    probe_index_ = std::clamp<std::int64_t>(probe_index_, 0, data_->test.count - 1);
    try {
        std::unique_ptr<train::TrainEngine> engine = train::make_train_engine(train::kPlainLoop);
        engine->setup(model_, train_->lane.params, 1);
        const train::ImageSet& test = data_->test;
        const std::int64_t size = test.rows * test.cols;
        std::vector<float> x(static_cast<std::size_t>(size));
        std::vector<std::int64_t> idx{probe_index_};
        std::vector<std::uint8_t> label(1);
        train::gather_batch(test, idx.data(), 1, x.data(), label.data());  // the trainer's own scaling
        engine->forward(x.data(), 1);
        const std::vector<float> logits = engine->logits();
        probe_probs_ = train::softmax(logits.data(), model_.classes);
        probe_loss_ = train::picture_cross_entropy(logits.data(), model_.classes, label[0]);
    } catch (const std::exception& e) {
        host_.error = std::string("cannot classify the test picture: ") + e.what();
    }
}

void TrainView::draw_one_picture(float width) {
    if (!data_ || !train_ || probe_probs_.empty()) return;
    const train::ImageSet& test = data_->test;
    const int truth = test.labels[static_cast<std::size_t>(probe_index_)];
    const float lh = ImGui::GetTextLineHeight();
    ImGui::Text("One test picture (#%lld)", static_cast<long long>(probe_index_ + 1));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float pic = lh * 2.9f;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    draw_grey_picture(dl, test.pixels.data() + probe_index_ * test.rows * test.cols, test.rows, at, pic);
    ImGui::Dummy({pic, pic});
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextColored(kMutedColour, "truly:");
    ImGui::Text("%s", train::fashion_mnist_class_name(truth));
    bool changed = false;
    if (ImGui::ArrowButton("##probe_prev", ImGuiDir_Left))
        probe_index_ = (probe_index_ + test.count - 1) % test.count, changed = true;
    hover_tip("The previous held-out picture.");
    ImGui::SameLine();
    if (ImGui::ArrowButton("##probe_next", ImGuiDir_Right))
        probe_index_ = (probe_index_ + 1) % test.count, changed = true;
    hover_tip("The next held-out picture.");
    ImGui::EndGroup();
    if (changed) classify_probe();
    if (probe_probs_.empty()) return;

    // One bar per class: its softmax probability. The true class green, a wrong winner red.
    const int best =
        static_cast<int>(std::max_element(probe_probs_.begin(), probe_probs_.end()) - probe_probs_.begin());
    const float name_w = ImGui::CalcTextSize("Ankle boot ").x, pct_w = ImGui::CalcTextSize("100.0%").x;
    const float bar_w = std::max(width - name_w - pct_w - lh * 0.6f, lh * 2.0f);
    const ImVec2 o = ImGui::GetCursorScreenPos();
    for (int c = 0; c < static_cast<int>(probe_probs_.size()); ++c) {
        const float y = o.y + c * (lh + 1);
        const ImU32 colour = c == truth  ? ImGui::GetColorU32(kOkColour)
                             : c == best ? ImGui::GetColorU32(kErrorColour)
                                         : ImGui::GetColorU32(kAccentColour);
        dl->AddText({o.x, y}, ImGui::GetColorU32(c == truth ? ImGuiCol_Text : ImGuiCol_TextDisabled),
                    train::fashion_mnist_class_name(c));
        const float x0 = o.x + name_w;
        dl->AddRectFilled({x0, y + 2}, {x0 + bar_w, y + lh - 1}, IM_COL32(40, 42, 50, 255));
        dl->AddRectFilled({x0, y + 2}, {x0 + bar_w * probe_probs_[static_cast<std::size_t>(c)], y + lh - 1}, colour);
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * probe_probs_[static_cast<std::size_t>(c)]);
        dl->AddText({x0 + bar_w + lh * 0.3f, y}, ImGui::GetColorU32(kMutedColour), pct);
    }
    ImGui::Dummy({width, static_cast<float>(probe_probs_.size()) * (lh + 1)});
    const double p = probe_probs_[static_cast<std::size_t>(truth)];
    // Two short lines rather than one wrapped: a wrap can fall inside "0.097".
    ImGui::Text("Its loss: -ln p(%s)", train::fashion_mnist_class_name(truth));
    ImGui::Text("  = -ln %.3g = %.3f", p, probe_loss_);
    hover_tip("Softmax of the last Train run's network, computed here with one forward pass of this picture.");
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + width);
    ImGui::TextColored(kMutedColour, "A batch's loss (the curve) is the mean of this over its pictures.");
    ImGui::PopTextWrapPos();
}

}  // namespace gpulab::app
