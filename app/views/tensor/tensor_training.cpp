// The tensor-core lesson's "Training in BF16" panel (issue 29 part 5): the training lesson's CNN
// trained three times on cpu-parallel, in FP32, in BF16 mixed precision (BF16 products, FP32 sums,
// FP32 master weights) and with BF16 weights, from the same weights on the same batches
// (core/train/precision_race.h). The canvas draws the three loss curves on one plot with the
// training lesson's plot widget; the Timing window the table and the sentences, every number from
// the run. Its own job, cache and stored results ("tensor-training"), apart from the lesson's main
// measurement: the run takes seconds, the others a fraction of one.
// Checked by eye in the screenshots of the step and by tests/tensor_gui_tests.cmake.
#include <algorithm>
#include <cmath>
#include <ctime>
#include <sstream>

#include "measure/format.h"
#include "runtime/cancel.h"
#include "tensor_view.h"
#include "views/xy_plot.h"
#include "widgets/cell_text.h"
#include "widgets/palette_colours.h"
#include "widgets/ui_helpers.h"

namespace gpulab::app {

namespace {

// The three lanes' colours and shapes: FP32 in the formats' FP32 colour, BF16 weights in the
// formats' BF16 colour, mixed precision (both at once) in a colour of its own.
PlotSeries lane_series(train::ComputePrecision p) {
    PlotSeries s;
    s.name = train::precision_short_label(p);
    s.backend = true;  // a few markers along the line, and the shape in the legend
    switch (p) {
        case train::ComputePrecision::Fp32:
            s.colour = format_colour(core::FpFormat::Fp32);
            s.marker = Marker::Circle;
            s.thickness = 4.0f;  // under the others: mixed precision often lies right on it
            break;
        case train::ComputePrecision::Bf16Mixed:
            s.colour = to_u32(kOkabeBluishGreen);
            s.marker = Marker::Square;
            s.thickness = 2.0f;
            break;
        case train::ComputePrecision::Bf16Pure:
            s.colour = format_colour(core::FpFormat::Bf16);
            s.marker = Marker::TriangleUp;
            s.thickness = 2.0f;
            break;
        case train::ComputePrecision::Tf32:  // not one of this race's lanes; here for completeness
            s.colour = format_colour(core::FpFormat::Tf32);
            s.marker = Marker::Diamond;
            s.thickness = 2.0f;
            break;
        case train::ComputePrecision::Fp16Mixed:  // likewise
            s.colour = format_colour(core::FpFormat::Fp16);
            s.marker = Marker::Cross;
            s.thickness = 2.0f;
            break;
    }
    return s;
}

// The loss of the last `window` batches up to each batch: single batches jump by more than the
// precisions differ.
std::vector<ImVec2> running_mean(const std::vector<float>& loss, std::size_t window) {
    std::vector<ImVec2> out;
    double sum = 0.0;
    for (std::size_t i = 0; i < loss.size(); ++i) {
        sum += loss[i];
        if (i >= window) sum -= loss[i - window];
        const std::size_t n = std::min(i + 1, window);
        out.push_back({static_cast<float>(i + 1), static_cast<float>(sum / static_cast<double>(n))});
    }
    return out;
}

std::string percent(double share) { return core::format_fixed(100.0 * share, share > 0 && share < 0.001 ? 3 : 1) + " %"; }

// One file of synthetic pictures when Fashion-MNIST is missing, said in the result.
train::Dataset race_data(const train::PrecisionRaceConfig& c, std::string& pictures) {
    const std::int64_t train_n = c.batch * c.batches;
    train::Dataset d;
    try {
        d = train::load_dataset(train::kFashionMnistDir, std::max(train_n, c.test_images));
        pictures = core::format_count(std::min(train_n, d.train.count)) + " Fashion-MNIST training pictures, " +
                   core::format_count(std::min(c.test_images, d.test.count)) + " test pictures";
    } catch (const std::exception&) {
        d = {};
        d.train = train::synthetic_pictures(train_n, c.seed);
        d.test = train::synthetic_pictures(c.test_images, c.seed + 1);
        pictures = core::format_count(train_n) + " synthetic pictures, a bright square at one of 10 places (Fashion-MNIST "
                   "is not installed here: Debian's dataset-fashion-mnist package has it)";
    }
    return d;
}

}  // namespace

std::size_t precision_race_bytes(const train::PrecisionRace& r) {
    std::size_t bytes = sizeof r + r.pictures.size() + r.implementation.size();
    for (const train::PrecisionLane& l : r.lanes) bytes += sizeof l + l.batch_loss.size() * sizeof(float) + l.label.size();
    return bytes;
}

void draw_precision_loss_plot(const train::PrecisionRace& r, ImVec2 size) {
    XYPlot plot{"loss", "batch", "(cross-entropy, mean of the last 10 batches)"};
    plot.x_min = 1.0f;
    plot.x_max = static_cast<float>(r.config.batches);
    float low = 0.0f, top = 0.0f;
    bool any = false;
    // Drawn with FP32 first, so the thinner curves stay visible on top of it.
    for (const train::PrecisionLane& l : r.lanes) {
        if (!l.ran) continue;
        PlotSeries s = lane_series(l.precision);
        s.points = running_mean(l.batch_loss, 10);
        for (const ImVec2& p : s.points)
            if (std::isfinite(p.y)) {
                low = any ? std::min(low, p.y) : p.y;
                top = any ? std::max(top, p.y) : p.y;
                any = true;
            }
        plot.series.push_back(std::move(s));
    }
    // The range the curves span, not from 0: the lanes differ by rounding, a small part of the loss.
    const float pad = std::max((top - low) * 0.08f, 0.01f);
    plot.y_min = any ? std::max(0.0f, low - pad) : 0.0f;
    plot.y_max = any ? top + pad : 1.0f;
    draw_xy_plot(plot, size);
}

void draw_precision_table(const train::PrecisionRace& r, bool hide_lost) {
    if (ImGui::BeginTable("##precision_lanes", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
        for (const char* h : {"precision", "loss, last 10", "test accuracy", "updates lost", "training time"}) ImGui::TableSetupColumn(h);
        ImGui::TableHeadersRow();
        for (const train::PrecisionLane& l : r.lanes) {
            ImGui::TableNextRow();
            ImGui::TableSetColumnIndex(0);
            cell_text(l.label);
            ImGui::TableSetColumnIndex(1);
            cell_text(core::format_fixed(l.last_loss(10), 3));
            ImGui::TableSetColumnIndex(2);
            cell_text(percent(l.test_accuracy));
            ImGui::TableSetColumnIndex(3);
            if (l.precision == train::ComputePrecision::Fp32)
                cell_text(kMutedColour, "not counted");
            else if (hide_lost && l.precision == train::ComputePrecision::Bf16Pure)
                cell_text(kMutedColour, "answer first");
            else
                cell_text(core::format_count(l.updates.lost) + " of " + core::format_count(l.updates.nonzero));
            ImGui::TableSetColumnIndex(4);
            cell_text(core::format_duration(l.train_ns));
        }
        ImGui::EndTable();
    }
}

void draw_precision_sentences(const train::PrecisionRace& r) {
    ImGui::PushTextWrapPos(0.0f);
    for (const std::string& line : train::describe_precision_race(r)) ImGui::TextUnformatted(line.c_str());
    ImGui::PopTextWrapPos();
}

// [SECTION] the view's panel and its run

// Both panels start alike: nothing yet (the view's note says why), or the sentence of a failed run.
bool TensorView::training_race_shown() {
    if (!race_) {
        draw_result_note();
        return false;
    }
    if (!race_->ok) {
        text_status(Status::Error, ("the training did not run: " + race_->error).c_str());
        return false;
    }
    return true;
}

void TensorView::draw_training_panel() {
    if (!training_race_shown()) return;
    const ImVec2 room = ImGui::GetContentRegionAvail();
    const float fs = ImGui::GetFontSize();
    draw_precision_loss_plot(*race_, {room.x, std::max(room.y - fs * 0.5f, fs * 10.0f)});
}

bool TensorView::updates_prompt() const { return predict_ && predict_->reveal == train::kUpdatesLostReveal; }

void TensorView::draw_training_timing() {
    if (!training_race_shown()) return;
    const bool hide = updates_prompt() && pick_ < 0 && !reveal_now_;
    draw_precision_table(*race_, hide);
    if (hide) ImGui::TextColored(kMutedColour, "The counts appear when you answer.");
    else draw_precision_sentences(*race_);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(kMutedColour, "%s", kModelNote);
    ImGui::PopTextWrapPos();
}

train::PrecisionRaceConfig TensorView::race_config(bool quick) const {
    train::PrecisionRaceConfig c;
    // Headless quick exports (the tests) train a third as long: the same panel, sooner.
    c.batches = quick ? std::max<int64_t>(10, train_batches_ / 3) : train_batches_;
    return c;
}

std::string TensorView::race_key(const train::PrecisionRaceConfig& c) {
    return c.engine + ", " + std::to_string(c.batches) + " batches of " + std::to_string(c.batch) + ", " +
           std::to_string(c.test_images) + " test pictures, seed " + std::to_string(c.seed) + ", rate " +
           core::format_fixed(c.sgd.learning_rate, 4) + ", momentum " + core::format_fixed(c.sgd.momentum, 3);
}

std::shared_ptr<const train::PrecisionRace> TensorView::measure_race(const train::PrecisionRaceConfig& c,
                                                                     const std::function<bool(float)>& keep_going) {
    std::string pictures;
    const train::Dataset data = race_data(c, pictures);
    auto r = std::make_shared<train::PrecisionRace>(train::run_precision_race(data, pictures, c, keep_going));
    if (!r->ok && r->error == "cancelled") return nullptr;
    return r;
}

bool TensorView::start_race() {
    const train::PrecisionRaceConfig c = race_config(false);
    return host_.submit("training in BF16", [this, c](const core::ProgressFn& progress) {
        auto r = measure_race(c, [&](float f) {
            return !progress || progress(f, "training the CNN in FP32, BF16 mixed and BF16 weights");
        });
        return std::function<void()>([this, r] {
            if (!r)
                host_.info = race_ ? "run cancelled; the panel shows the previous result" : "run cancelled";
            else
                finish_race(r);
        });
    });
}

void TensorView::finish_race(std::shared_ptr<const train::PrecisionRace> r) {
    if (!r->ok) host_.error = "the training in BF16 did not run: " + r->error;
    else host_.error.clear();
    // Measured now: a line from an earlier step saying where a cached result came from would be wrong.
    host_.info.clear();
    race_ = std::move(r);
    race_cache_.put(race_key(race_->config), race_, precision_race_bytes(*race_), std::time(nullptr));
}

// [SECTION] CSV

std::string precision_race_csv(const train::PrecisionRace& r) {
    std::ostringstream o;
    o << "kind,precision,batches,batch,final_loss_last_10,test_accuracy,updates_nonzero,updates_lost,"
         "updates_below_bf16_step,train_ns\n";
    if (!r.ok) {
        o << "precision_lane,,,,,,,,," << core::csv_field("not run: " + r.error) << "\n";
        return with_source_column(o.str(), shown_result_source());
    }
    for (const train::PrecisionLane& l : r.lanes)
        o << "precision_lane," << core::csv_field(l.label) << "," << l.batch_loss.size() << "," << r.config.batch << ","
          << l.last_loss(10) << "," << l.test_accuracy << "," << l.updates.nonzero << "," << l.updates.lost << ","
          << l.updates.below_bf16 << "," << l.train_ns << "\n";
    o << "\nkind,precision,batch_number,loss\n";
    for (const train::PrecisionLane& l : r.lanes)
        for (std::size_t b = 0; b < l.batch_loss.size(); ++b)
            o << "precision_loss," << train::precision_id(l.precision) << "," << b + 1 << "," << l.batch_loss[b] << "\n";
    return with_source_column(o.str(), shown_result_source());
}

}  // namespace gpulab::app
