// The samples tab: a few training pictures of every class, in a column per class under its name,
// straight from the IDX files (the first ones of each class), so the class sees what the network
// sees: 28x28 grey, the garment light on black.
#include <algorithm>
#include <vector>

#include "measure/format.h"
#include "train_draw.h"
#include "train_view.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

void TrainView::draw_samples_panel(float width) {
    if (!data_) {
        draw_data_missing();
        return;
    }
    const train::ImageSet& set = data_->train;
    const int classes = data_->classes;
    const int per_class = 4;
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    const float col = width / static_cast<float>(classes);
    const float side = std::min(col - 8.0f, lh * 5.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    std::vector<int> shown(static_cast<std::size_t>(classes), 0);
    for (std::int64_t i = 0; i < set.count; ++i) {
        const int c = set.labels[static_cast<std::size_t>(i)];
        if (c >= classes || shown[static_cast<std::size_t>(c)] >= per_class) continue;
        const ImVec2 at{o.x + c * col + 2, o.y + lh * 1.3f + shown[static_cast<std::size_t>(c)] * (side + 6)};
        draw_grey_picture(dl, set.pixels.data() + i * set.rows * set.cols, set.rows, at, side);
        ++shown[static_cast<std::size_t>(c)];
        if (std::all_of(shown.begin(), shown.end(), [&](int n) { return n >= per_class; })) break;
    }
    for (int c = 0; c < classes; ++c) {
        const char* name = train::fashion_mnist_class_name(c);
        dl->AddText({o.x + c * col + 2, o.y}, ImGui::GetColorU32(kAccentColour), name);
    }
    ImGui::Dummy({width, lh * 1.3f + per_class * (side + 6)});
    ImGui::TextColored(kMutedColour, "%s training and %s test pictures of %lldx%lld pixels from %s.",
                       core::format_count(data_->train.count).c_str(), core::format_count(data_->test.count).c_str(),
                       static_cast<long long>(set.rows), static_cast<long long>(set.cols), data_->folder.c_str());
}

void TrainView::draw_data_missing() {
    if (!data_error_.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(kErrorColour, "No data set to train on: %s", data_error_.c_str());
        ImGui::TextUnformatted(
            "Fix: sudo apt install dataset-fashion-mnist (or run scripts/install-deps.sh), then press Look again.");
        ImGui::PopTextWrapPos();
        if (ImGui::Button("Look again")) data_error_.clear();  // update() loads again when the worker is free
        hover_tip("Reads the data set's folder again (GPULAB_TRAIN_DATA names another folder).");
    } else {
        ImGui::TextColored(kMutedColour, "loading Fashion-MNIST ...");
    }
}

}  // namespace gpulab::app
