// The convolution canvas's "Trained channels" tab: how ONE output map of a trained CNN layer is made
// from its input channels, with every number computed. The layer is conv2 of the training lesson's
// model (train::kDefaultModelSpec) with weights learned on Fashion-MNIST: loaded from the cache
// folder's file of learned parameters, else trained here for one epoch on 6,000 pictures on the
// worker (progress and Cancel as every job; headless --quick: a few batches, said so), then saved.
// For one test picture, conv1 + ReLU + pool give conv2's 32 input maps (13 x 13); for one output
// filter k (default: the strongest response) the tab shows the 32 partial maps (slice c of filter k
// slid over input channel c), adds them into the running sum one channel at a time, then the bias
// (= the layer's output map, before ReLU), then ReLU. The numbers come from
// core/train/channel_partials.h, whose test checks them against the engines' own conv2 forward.
// Without the data set: one sentence naming the Debian package, and random filters, labelled so.
// Colours: the lesson's diverging map in the View menu's palette (widgets/diverging_map.h: blue
// below zero, white at zero, red above; orange in the colour-blind palette), with a legend carrying
// "-" and "+" and the range of each colour scale.
// Checked by eye in the screenshots (the conv-sliding-window export's "Channels in a trained
// network" step, normal and presenter themes, 1366x768).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "conv2d_view.h"
#include "measure/format.h"
#include "io/image_io.h"
#include "workloads/conv2d_workload.h"
#include "widgets/diverging_map.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

constexpr int kPictures = 100;             // the first test pictures the student can pick from
constexpr std::int64_t kQuickBatches = 20;  // headless --quick without a saved file
constexpr std::int64_t kTrainImages = 6000;
constexpr std::int64_t kBatch = 64;

// [SECTION] the job: weights and pictures

struct TrainedOutcome {
    std::shared_ptr<const TrainedChannels> channels;  // null: nothing new (cancelled or failed)
    std::string message;
    bool error = false;
};

TrainedOutcome prepare_trained(bool quick, const core::ProgressFn& progress) {
    TrainedOutcome out;
    auto t = std::make_shared<TrainedChannels>();
    t->model = train::make_model(train::kDefaultModelSpec, {1, 28, 28}, 10);
    if (progress && !progress(0.0f, "loading Fashion-MNIST")) {
        out.message = "cancelled: the filters stay as they were";
        return out;
    }
    train::Dataset data;
    try {
        data = train::load_dataset(train::kFashionMnistDir, kTrainImages);
    } catch (const std::exception& e) {
        t->params = train::init_params(t->model, 1);
        t->learned = false;
        t->provenance =
            "Random filters, never trained (He initialisation, seed 1): Fashion-MNIST is not installed here; "
            "Debian's package dataset-fashion-mnist provides it.";
        t->note = e.what();
        const core::Tensor img = core::make_test_image(28, 28);
        t->pictures.emplace_back(img.data.begin(), img.data.end());
        t->labels.push_back(-1);
        out.channels = std::move(t);
        return out;
    }
    train::ObtainConfig config;
    config.cache_dir = train::params_cache_dir();
    config.train_images = kTrainImages;
    config.batch = kBatch;
    if (quick) config.max_batches = kQuickBatches;
    const std::int64_t batches =
        quick ? kQuickBatches : (std::min(kTrainImages, data.train.count) + kBatch - 1) / kBatch;
    const train::ObtainedParams r = train::obtain_learned_params(
        data, t->model, config, [&](const train::LaneResult&, const train::BatchProgress& p) {
            const std::string stage = "training the model's filters: batch " + std::to_string(p.batch) + " of " +
                                      std::to_string(batches);
            return !progress || progress(0.95f * static_cast<float>(p.batch) / static_cast<float>(batches), stage);
        });
    if (!r.ok) {
        out.message = r.stopped ? "training cancelled: the filters stay as they were" : "training failed: " + r.reason;
        out.error = !r.stopped;
        return out;
    }
    t->params = r.learned.params;
    t->learned = true;
    // "Filters learned just now from ..." or "Filters after 20 batches (...)".
    std::string said = r.learned.record.describe(r.trained_now);
    if (said.rfind("filters ", 0) == 0) said.erase(0, 8);
    t->provenance = "Filters " + said + ".";
    t->file = r.file;
    std::string note = r.refused;
    auto add = [&](const std::string& s) {
        if (s.empty()) return;
        note += (note.empty() ? "" : "; ") + s;
    };
    // Where the file lives is the instructor's detail (the line's tooltip), not the class's.
    if (r.trained_now && !r.file.empty()) add("kept in gpulab's cache on this computer, so the next start loads them");
    if (!r.trained_now) add("loaded from gpulab's cache on this computer (learned by an earlier run)");
    add(r.save_note);
    t->note = note;
    const std::int64_t n = std::min<std::int64_t>(kPictures, data.test.count);
    const std::int64_t px = data.test.rows * data.test.cols;
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<float> img(static_cast<std::size_t>(px));
        for (std::int64_t j = 0; j < px; ++j)
            img[static_cast<std::size_t>(j)] = data.test.pixels[static_cast<std::size_t>(i * px + j)] / 255.0f;
        t->pictures.push_back(std::move(img));
        t->labels.push_back(data.test.labels[static_cast<std::size_t>(i)]);
    }
    out.channels = std::move(t);
    out.message = r.trained_now ? "filters learned: " + r.learned.record.describe(true) : "";
    return out;
}

// [SECTION] drawing helpers

ImU32 grey(float v, float hi) {
    const float t = std::clamp(v / std::max(hi, 1e-12f), 0.0f, 1.0f);
    return ImGui::ColorConvertFloat4ToU32({t, t, t, 1.0f});
}

// A value short enough for a small cell: "1.2", "-.35", "0"; "" when it does not fit.
std::string cell_number(float v, float cell) {
    if (std::fabs(v) < 0.005f) return "0";
    char t[16];
    std::snprintf(t, sizeof t, "%.2f", v);
    std::string s = t;
    if (s.rfind("0.", 0) == 0) s.erase(0, 1);
    if (s.rfind("-0.", 0) == 0) s.erase(1, 1);
    if (ImGui::CalcTextSize(s.c_str()).x > cell - 2) {
        if (std::fabs(v) < 0.05f) return "0";  // never "-.0"; the colour keeps the sign, the tooltip the value
        std::snprintf(t, sizeof t, "%.1f", v);
        s = t;
        if (s.rfind("0.", 0) == 0) s.erase(0, 1);
        if (s.rfind("-0.", 0) == 0) s.erase(1, 1);
    }
    return ImGui::CalcTextSize(s.c_str()).x > cell - 2 ? std::string() : s;
}

// An h x w map of cells at `o`; `sign` colours it on the diverging map around zero, else grey from 0 to
// `range`. Returns the hovered cell (-1 when none).
int draw_map(ImDrawList* dl, ImVec2 o, float cell, const float* v, std::int64_t h, std::int64_t w, float range,
             bool sign, float alpha, bool numbers) {
    int hovered = -1;
    // Numbers in every cell or in none: a map that writes only the values that fit would show the
    // short (positive) ones and hide the negative ones.
    for (std::int64_t i = 0; numbers && i < h * w; ++i)
        if (cell_number(v[i], cell).empty()) numbers = false;
    for (std::int64_t y = 0; y < h; ++y)
        for (std::int64_t x = 0; x < w; ++x) {
            const float value = v[y * w + x];
            const ImVec2 a{o.x + static_cast<float>(x) * cell, o.y + static_cast<float>(y) * cell};
            const ImU32 bg = sign ? diverging_colour(value, range, alpha) : grey(value, range);
            dl->AddRectFilled(a, {a.x + cell, a.y + cell}, bg);
            if (numbers) {
                const std::string n = cell_number(value, cell);
                if (!n.empty()) {
                    const ImVec2 ts = ImGui::CalcTextSize(n.c_str());
                    dl->AddText({a.x + (cell - ts.x) * 0.5f, a.y + (cell - ts.y) * 0.5f}, text_on(bg), n.c_str());
                }
            }
            if (ImGui::IsMouseHoveringRect(a, {a.x + cell, a.y + cell})) hovered = static_cast<int>(y * w + x);
        }
    dl->AddRect(o, {o.x + cell * static_cast<float>(w), o.y + cell * static_cast<float>(h)},
                IM_COL32(110, 110, 120, 255));
    return hovered;
}

// One line of legend for a colour scale: "-0.75 [blue .. white .. red] +0.75 what", the
// numbers in the colours of their ends. Returns the width used.
float draw_legend(ImDrawList* dl, ImVec2 o, float bar_w, float range, const char* what) {
    const float fs = ImGui::GetFontSize();
    const float bar_h = std::floor(fs * 0.75f);
    char lo[32], hi[32];
    std::snprintf(lo, sizeof lo, "-%.2f", range);
    std::snprintf(hi, sizeof hi, "+%.2f", range);
    float x = o.x;
    // Half-way along each side: light enough to read on the dark background.
    dl->AddText({x, o.y}, to_u32(diverging_rgb(diverging_ramp(), -0.5f)), lo);
    x += ImGui::CalcTextSize(lo).x + fs * 0.3f;
    const float y = o.y + (fs - bar_h) * 0.5f + 1.0f;
    const int steps = 32;
    for (int i = 0; i < steps; ++i) {
        const float a = x + bar_w * static_cast<float>(i) / steps, b = x + bar_w * static_cast<float>(i + 1) / steps;
        const float v = ((static_cast<float>(i) + 0.5f) / steps * 2.0f - 1.0f) * range;
        dl->AddRectFilled({a, y}, {b + 0.5f, y + bar_h}, diverging_colour(v, range));
    }
    dl->AddLine({x + bar_w * 0.5f, y - 2}, {x + bar_w * 0.5f, y + bar_h + 2}, IM_COL32(30, 30, 34, 255), 1.0f);
    x += bar_w + fs * 0.3f;
    dl->AddText({x, o.y}, to_u32(diverging_rgb(diverging_ramp(), 0.5f)), hi);
    x += ImGui::CalcTextSize(hi).x + fs * 0.4f;
    dl->AddText({x, o.y}, IM_COL32(200, 200, 205, 255), what);
    x += ImGui::CalcTextSize(what).x;
    return x - o.x;
}

// Text clipped to `width`, ending in "..." when cut; the whole text goes to the tooltip.
void clipped_text(ImDrawList* dl, ImVec2 at, float width, ImU32 colour, const std::string& text) {
    if (width <= ImGui::CalcTextSize("...").x) return;
    std::string t = text;
    if (ImGui::CalcTextSize(t.c_str()).x > width) {
        while (!t.empty() && ImGui::CalcTextSize((t + "...").c_str()).x > width) t.pop_back();
        t += "...";
    }
    dl->AddText(at, colour, t.c_str());
    if (t != text && ImGui::IsMouseHoveringRect(at, {at.x + width, at.y + ImGui::GetFontSize()})) hover_tip(text.c_str());
}

}  // namespace

// [SECTION] runs

bool Conv2dView::start_trained_run() {
    return host_.submit("learned filters", [this](const core::ProgressFn& progress) {
        TrainedOutcome o = prepare_trained(false, progress);
        return std::function<void()>([this, o] {
            if (o.error) host_.error = o.message;
            if (o.channels) finish_trained(o.channels, o.message);
            else if (!o.error) host_.info = o.message;
        });
    });
}

void Conv2dView::run_trained_blocking(bool quick) {
    TrainedOutcome o = prepare_trained(quick, {});
    if (o.error) host_.error = o.message;
    if (!o.channels) return;
    finish_trained(o.channels, o.message);
    // A picture shows the whole sum: every channel added, the bias, ReLU.
    trained_playing_ = false;
    if (partials_) trained_stage_ = static_cast<double>(partials_->channels + 1);
}

void Conv2dView::finish_trained(std::shared_ptr<const TrainedChannels> t, std::string message) {
    trained_ = std::move(t);
    trained_picture_ = std::clamp(trained_picture_, 0, std::max(0, static_cast<int>(trained_->pictures.size()) - 1));
    partials_picture_ = -1;
    recompute_partials();
    trained_stage_ = 0.0;
    trained_playing_ = true;
    if (!message.empty()) host_.info = std::move(message);
}

void Conv2dView::recompute_partials() {
    if (!trained_ || trained_->pictures.empty()) return;
    if (partials_picture_ == trained_picture_ && partials_filter_ == trained_filter_) return;
    partials_picture_ = trained_picture_;
    partials_filter_ = trained_filter_;
    partials_error_.clear();
    try {
        const train::ModelDesc& m = trained_->model;
        const int conv2 = train::conv_layer_index(m, 1);
        if (conv2 < 0) throw core::InputError("the model has no second convolution");
        const auto& pic = trained_->pictures[static_cast<std::size_t>(trained_picture_)];
        const std::vector<float> in = train::forward_to(m, trained_->params, pic.data(), static_cast<std::size_t>(conv2));
        const std::int64_t k = trained_filter_ >= 0
                                   ? trained_filter_
                                   : train::strongest_filter(m, trained_->params, static_cast<std::size_t>(conv2), in);
        partials_ = train::channel_partials(m, trained_->params, static_cast<std::size_t>(conv2), in, k);
    } catch (const std::exception& e) {
        partials_.reset();
        partials_error_ = e.what();
    }
}

void Conv2dView::update_trained(float dt) {
    if (!partials_ || !trained_playing_) return;
    const double last = static_cast<double>(partials_->channels + 1);
    trained_stage_ += static_cast<double>(dt) * trained_speed_;
    if (trained_stage_ >= last) {
        trained_stage_ = last;
        trained_playing_ = false;  // stays on the finished map; Play starts again
    }
}

// [SECTION] drawing

void Conv2dView::draw_trained_controls() {
    const float fs = ImGui::GetFontSize();
    const int n = static_cast<int>(trained_->pictures.size());
    if (n > 1) {
        ImGui::SetNextItemWidth(fs * 9.0f);
        if (ImGui::SliderInt("##trained_picture", &trained_picture_, 0, n - 1, "test picture %d",
                             ImGuiSliderFlags_AlwaysClamp))
            trained_stage_ = 0.0, trained_playing_ = true;
        hover_tip("Which Fashion-MNIST test picture goes through conv1, ReLU and pooling into conv2.");
        ImGui::SameLine();
    }
    bool strongest = trained_filter_ < 0;
    if (ImGui::Checkbox("strongest", &strongest)) {
        trained_filter_ = strongest ? -1 : static_cast<int>(partials_ ? partials_->filter : 0);
        trained_stage_ = 0.0;
        trained_playing_ = true;
    }
    hover_tip("Show the filter whose output map holds the largest value for this picture.");
    ImGui::SameLine();
    int k = partials_ ? static_cast<int>(partials_->filter) : std::max(trained_filter_, 0);
    const int filters = partials_ ? static_cast<int>(partials_->filters) : 64;
    ImGui::SetNextItemWidth(fs * 7.5f);
    if (ImGui::SliderInt("##trained_filter", &k, 0, filters - 1, "filter k = %d", ImGuiSliderFlags_AlwaysClamp)) {
        trained_filter_ = k;
        trained_stage_ = 0.0;
        trained_playing_ = true;
    }
    hover_tip("Which of conv2's output filters to build up, channel by channel.");
    ImGui::SameLine();
    if (ImGui::Button(trained_playing_ ? "Pause" : "Play", {fs * 3.6f, 0})) {
        if (!trained_playing_ && partials_ && trained_stage_ >= static_cast<double>(partials_->channels + 1))
            trained_stage_ = 0.0;
        trained_playing_ = !trained_playing_;
    }
    hover_tip("Add the partial maps into the running sum one input channel at a time, then the bias, then ReLU.");
    ImGui::SameLine();
    if (ImGui::Button("Step")) {
        trained_playing_ = false;
        const double last = partials_ ? static_cast<double>(partials_->channels + 1) : 0.0;
        trained_stage_ = std::floor(trained_stage_) + 1.0;
        if (trained_stage_ > last) trained_stage_ = 0.0;
    }
    hover_tip("One channel (then the bias, then ReLU) forward.");
    ImGui::SameLine();
    int stage = static_cast<int>(trained_stage_);
    const int last = partials_ ? static_cast<int>(partials_->channels + 1) : 0;
    ImGui::SetNextItemWidth(-1);
    const char* fmt = stage == 0            ? "channel %d added"
                      : stage < last - 1     ? "channels 0..%d added"
                      : stage == last - 1    ? "+ bias (stage %d)"
                                             : "ReLU (stage %d)";
    if (ImGui::SliderInt("##trained_stage", &stage, 0, last, fmt, ImGuiSliderFlags_AlwaysClamp)) {
        trained_stage_ = stage;
        trained_playing_ = false;
    }
    hover_tip("Scrub through the accumulation.");
}


void Conv2dView::draw_trained_panel() {
    if (!trained_) {
        ImGui::TextWrapped("%s", host_.jobs->busy()
                                     ? "Loading or learning the filters: the picture appears when the job ends."
                                     : "No filters yet: Run loads the learned filters from the cache folder, or "
                                       "learns them on 6,000 Fashion-MNIST pictures and saves them.");
        ImGui::BeginDisabled(host_.jobs->busy());
        if (ImGui::Button("Load or learn the filters (Run)")) request_run();
        ImGui::EndDisabled();
        return;
    }
    recompute_partials();
    const float fs = ImGui::GetFontSize();
    const float lh = ImGui::GetTextLineHeightWithSpacing();
    ImGui::PushStyleColor(ImGuiCol_Text, trained_->learned ? kAccentColour : kErrorColour);
    ImGui::TextWrapped("%s", trained_->provenance.c_str());
    ImGui::PopStyleColor();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 label_col = IM_COL32(205, 205, 210, 255), muted = IM_COL32(150, 150, 158, 255);
    if (!trained_->note.empty()) {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        clipped_text(dl, at, ImGui::GetContentRegionAvail().x, muted, trained_->note);
        ImGui::Dummy({ImGui::GetContentRegionAvail().x, fs});
        if (!trained_->file.empty()) hover_tip(("The learned weights' file: " + trained_->file).c_str());
    }
    draw_trained_controls();
    if (!partials_) {
        ImGui::TextColored(kErrorColour, "%s", partials_error_.c_str());
        return;
    }
    const train::ChannelPartials& cp = *partials_;
    const std::int64_t C = cp.channels, P = cp.out_h, Q = cp.out_w, R = cp.kernel, PQ = cp.plane();
    const int stage = std::clamp(static_cast<int>(trained_stage_), 0, static_cast<int>(C + 1));
    const std::int64_t c_now = std::min<std::int64_t>(stage, C - 1);  // channels 0..c_now are in the sum
    const bool with_bias = stage >= C, with_relu = stage >= C + 1;

    float part_range = 1e-6f, sum_range = 1e-6f, in_hi = 1e-6f, w_range = 1e-6f;
    for (float v : cp.partials) part_range = std::max(part_range, std::fabs(v));
    for (float v : cp.running) sum_range = std::max(sum_range, std::fabs(v));
    for (float v : cp.output) sum_range = std::max(sum_range, std::fabs(v));
    for (float v : cp.inputs) in_hi = std::max(in_hi, v);
    for (float v : cp.slices) w_range = std::max(w_range, std::fabs(v));

    // [SECTION] layout: a header line, then three columns (the picture and channel c with its slice |
    // the 32 partial maps | the running sum, + bias = output, ReLU), then one line of legends.
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const ImVec2 o = ImGui::GetCursorScreenPos();
    const float gap = std::floor(fs * 0.9f), tg = std::max(2.0f, std::floor(fs * 0.25f));
    const float A = std::max(avail.y - 2.0f * lh - 2.0f, fs * 4.0f);  // the maps' height
    const float top = o.y + lh;
    const ImU32 frame_col = IM_COL32(255, 210, 60, 255);
    char buf[200];

    // Left: the picture, then input channel c and slice c of filter k.
    const float L = std::floor(std::min(avail.x * 0.2f, A * 0.95f));
    const float pic_cell = std::max(1.0f, std::floor(std::min(L * 0.7f, A * 0.48f) / 28.0f));
    const float pic_side = pic_cell * 28.0f;
    const float detail_h = A - pic_side - lh - tg;
    const float in_cell = std::max(1.0f, std::floor(std::min((L - gap) * 0.5f / 13.0f, detail_h / 13.0f)));
    const float in_side = in_cell * static_cast<float>(cp.in_w);
    const float w_cell = std::max(2.0f, std::floor(std::min((L - in_side - gap) / static_cast<float>(R),
                                                            std::min(detail_h, fs * 7.0f) / static_cast<float>(R))));
    // Middle: 4 rows of 8 partial maps; a label under each when there is room.
    const int cols = 8, rows = static_cast<int>((C + cols - 1) / cols);
    const float mid_max = (avail.x - L - 2.0f * gap) * 0.58f;
    const bool tile_labels = A > rows * (lh + fs * 3.0f);
    const float row_extra = tile_labels ? lh : 0.0f;
    const float tile_cell = std::max(
        1.0f, std::floor(std::min((mid_max - tg * (cols - 1)) / (cols * static_cast<float>(Q)),
                                  (A - rows * row_extra - tg * (rows - 1)) / (rows * static_cast<float>(P)))));
    const float tile = tile_cell * static_cast<float>(Q);
    const float mid_w = cols * tile + (cols - 1) * tg;
    const float mid_x = o.x + L + gap, right_x = mid_x + mid_w + gap;
    const float right_w = o.x + avail.x - right_x;
    // Right: the running sum large, and beside it + bias = output and ReLU.
    const float big_cell =
        std::max(1.0f, std::floor(std::min(right_w * 0.6f / static_cast<float>(Q), A / static_cast<float>(P))));
    const float big = big_cell * static_cast<float>(Q);
    const float small_x = right_x + big + gap;
    const float small_w = o.x + avail.x - small_x;
    const float small_cell = std::max(
        1.0f, std::floor(std::min(small_w / static_cast<float>(Q), (A - 2.0f * lh - tg) * 0.5f / static_cast<float>(P))));
    const float small = small_cell * static_cast<float>(Q);

    // Headers.
    const int label = trained_->labels[static_cast<std::size_t>(trained_picture_)];
    const std::string pic_label = label >= 0 ? std::to_string(trained_picture_) + ": " +
                                                   train::fashion_mnist_class_name(label)
                                             : std::string("built-in test image");
    clipped_text(dl, {o.x, o.y}, L, label_col, pic_label);
    std::snprintf(buf, sizeof buf, "%lld partial maps of filter k = %lld (each %lld x %lld)", static_cast<long long>(C),
                  static_cast<long long>(cp.filter), static_cast<long long>(P), static_cast<long long>(Q));
    clipped_text(dl, {mid_x, o.y}, mid_w, label_col, buf);
    if (with_bias)
        std::snprintf(buf, sizeof buf, "sum of all %lld + bias", static_cast<long long>(C));
    else
        std::snprintf(buf, sizeof buf, c_now == 0 ? "running sum: c = 0" : "running sum: c = 0..%lld",
                      static_cast<long long>(c_now));
    clipped_text(dl, {right_x, o.y}, big, label_col, buf);

    // [left]
    const auto& pic = trained_->pictures[static_cast<std::size_t>(trained_picture_)];
    const int hov_pic = draw_map(dl, {o.x, top}, pic_cell, pic.data(), 28, 28, 1.0f, false, 1.0f, false);
    if (hov_pic >= 0)
        hover_tip(label >= 0 ? "A Fashion-MNIST test picture, 28 x 28. conv1 (32 filters), ReLU and 2x2 max pooling "
                               "turn it into conv2's 32 input maps of 13 x 13."
                             : "The built-in test image at 28 x 28 (not a Fashion-MNIST picture).");
    float y = top + pic_side + tg;
    std::snprintf(buf, sizeof buf, "channel %lld  x  slice %lld", static_cast<long long>(c_now),
                  static_cast<long long>(c_now));
    clipped_text(dl, {o.x, y}, L, label_col, buf);
    y += lh;
    const int hov_in = draw_map(dl, {o.x, y}, in_cell, cp.inputs.data() + c_now * cp.in_h * cp.in_w, cp.in_h, cp.in_w,
                                in_hi, false, 1.0f, false);
    const float wx = o.x + in_side + gap;
    const int hov_w = draw_map(dl, {wx, y}, w_cell, cp.slices.data() + c_now * R * R, R, R, w_range, true, 1.0f, true);
    if (hov_in >= 0)
        hover_tip(("conv2's input channel " + std::to_string(c_now) + " (conv1, ReLU, pool), at (" +
                   std::to_string(hov_in / cp.in_w) + ", " + std::to_string(hov_in % cp.in_w) + "): " +
                   core::format_fixed(cp.inputs[static_cast<std::size_t>(c_now * cp.in_h * cp.in_w + hov_in)], 4) +
                   "; grey from 0 (black) to " + core::format_fixed(in_hi, 2) + " (white)")
                      .c_str());
    if (hov_w >= 0)
        hover_tip(("weight (" + std::to_string(hov_w / R) + ", " + std::to_string(hov_w % R) + ") of slice " +
                   std::to_string(c_now) + " of filter " + std::to_string(cp.filter) + ": " +
                   core::format_fixed(cp.slices[static_cast<std::size_t>(c_now * R * R + hov_w)], 4) +
                   " (its own colour scale: +-" + core::format_fixed(w_range, 2) + ")")
                      .c_str());

    // [middle] The partial maps: added ones in full colour, the rest faded, the current one framed.
    int hov_tile = -1, hov_tile_cell = -1;
    for (std::int64_t c = 0; c < C; ++c) {
        const float tx = mid_x + static_cast<float>(c % cols) * (tile + tg);
        const float ty = top + static_cast<float>(c / cols) * (tile + tg + row_extra);
        const bool in_sum = c <= c_now;
        const int h = draw_map(dl, {tx, ty}, tile_cell, cp.partials.data() + c * PQ, P, Q, part_range, true,
                               in_sum ? 1.0f : 0.22f, false);
        if (h >= 0) hov_tile = static_cast<int>(c), hov_tile_cell = h;
        if (c == c_now && !with_bias)
            dl->AddRect({tx - 2, ty - 2}, {tx + tile + 2, ty + tile + 2}, frame_col, 0.0f, 0, 2.0f);
        if (tile_labels) {
            std::snprintf(buf, sizeof buf, c == 0 ? "c=%lld" : "+c=%lld", static_cast<long long>(c));
            if (ImGui::CalcTextSize(buf).x > tile + tg) std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(c));
            dl->AddText({tx, ty + tile + 1.0f}, in_sum ? label_col : muted, buf);
        }
    }
    if (hov_tile >= 0)
        hover_tip(("partial map " + std::to_string(hov_tile) + " at (" + std::to_string(hov_tile_cell / Q) + ", " +
                   std::to_string(hov_tile_cell % Q) + "): " +
                   core::format_fixed(cp.partials[static_cast<std::size_t>(hov_tile * PQ + hov_tile_cell)], 4) +
                   "\nSlice " + std::to_string(hov_tile) + " of filter " + std::to_string(cp.filter) +
                   " (3 x 3 weights) slid over input channel " + std::to_string(hov_tile) + " alone. Faded: not "
                   "added to the running sum yet.")
                      .c_str());

    // [right] The running sum (after the bias: the output), + bias = output (before ReLU), ReLU.
    const float* big_map = with_bias ? cp.output.data() : cp.running.data() + c_now * PQ;
    const int hov_sum = draw_map(dl, {right_x, top}, big_cell, big_map, P, Q, sum_range, true, 1.0f, true);
    float sy = top;
    std::snprintf(buf, sizeof buf, "+ bias %.3f = output (before ReLU)", cp.bias);
    clipped_text(dl, {small_x, sy}, small_w, with_bias ? label_col : muted, buf);
    sy += lh;
    const int hov_out = draw_map(dl, {small_x, sy}, small_cell, cp.output.data(), P, Q, sum_range, true,
                                 with_bias ? 1.0f : 0.22f, false);
    if (with_bias && !with_relu)
        dl->AddRect({small_x - 2, sy - 2}, {small_x + small + 2, sy + small + 2}, frame_col, 0.0f, 0, 2.0f);
    sy += small + tg;
    clipped_text(dl, {small_x, sy}, small_w, with_relu ? label_col : muted, "ReLU: max(0, x)");
    sy += lh;
    const int hov_relu = draw_map(dl, {small_x, sy}, small_cell, cp.relu.data(), P, Q, sum_range, true,
                                  with_relu ? 1.0f : 0.22f, false);
    if (with_relu) dl->AddRect({small_x - 2, sy - 2}, {small_x + small + 2, sy + small + 2}, frame_col, 0.0f, 0, 2.0f);
    auto value_tip = [&](int i, const std::string& what, const float* map) {
        if (i < 0) return;
        hover_tip((what + " at (" + std::to_string(i / Q) + ", " + std::to_string(i % Q) +
                   "): " + core::format_fixed(map[i], 4))
                      .c_str());
    };
    value_tip(hov_sum, with_bias ? "output map " + std::to_string(cp.filter) + " (all 32 partial maps + bias)"
                                 : "running sum of partial maps 0.." + std::to_string(c_now),
              big_map);
    value_tip(hov_out, "output map " + std::to_string(cp.filter) + " before ReLU", cp.output.data());
    value_tip(hov_relu, "after ReLU", cp.relu.data());

    // [bottom] The legends: one colour scale for the 32 partial maps, one for sums and outputs.
    const float ly = o.y + lh + A + 2.0f;
    const float bar_w = std::floor(std::min(fs * 6.0f, avail.x * 0.1f));
    float lx = o.x;
    ImGui::PushClipRect({o.x, ly}, {o.x + avail.x, ly + lh}, true);
    lx += draw_legend(dl, {lx, ly}, bar_w, part_range, "partial maps") + gap;
    lx += draw_legend(dl, {lx, ly}, bar_w, sum_range, "sums and outputs") + gap;
    clipped_text(dl, {lx, ly}, o.x + avail.x - lx, muted,
                 std::string("blue -, white 0, ") + diverging_positive_word() + " +; inputs grey from 0 (black)");
    ImGui::PopClipRect();
    ImGui::Dummy({avail.x, avail.y - 1.0f});
}

}  // namespace gpulab::app
