// The training lesson's results kept on disk (issue 41): Train, the race, the batch-size sweep and
// this machine's peaks are stored under the settings that produced them, so `gpulab prerun` covers
// the lesson and a launch in class shows the pre-class run at once. Only a whole result is stored:
// a run stopped part-way is shown in this session but never replaces the stored one.
#include <ctime>
#include <optional>
#include <utility>

#include "train_view.h"
#include "measure/format.h"
#include "views/export.h"
#include "views/stored_results.h"
#include "views/train_archive.h"

namespace gpulab::app {

template <class A> void serialize(A& a, TrainPlan& p) {
    core::archive_members(a, p, p.backend, p.images, p.epochs, p.batch, p.learning_rate, p.budget_ns, p.eval_images,
                          p.scalar_batches, p.race_budget_ns, p.race_scalar_budget_ns, p.race_images, p.race_test_images,
                          p.batches, p.batch_images, p.batch_budget_ns, p.quick);
}
template <class A> void serialize(A& a, TrainRunResult& r) {
    core::archive_members(a, r, r.plan, r.simulated, r.lane, r.eval, r.test_images, r.curves);
}
template <class A> void serialize(A& a, RaceRunResult& r) { core::archive_members(a, r, r.plan, r.lanes, r.summary, r.wall_ns); }
template <class A> void serialize(A& a, BatchRunResult& r) { core::archive_members(a, r, r.plan, r.cells); }

namespace {

std::size_t lane_bytes(const train::LaneResult& l) {
    return sizeof l + l.points.size() * sizeof(train::CurvePoint) + l.batch_loss.size() * sizeof(float) +
           l.layer_ns.size() * sizeof(train::LayerTime) + l.params.size() * sizeof(float);
}
std::size_t train_bytes(const TrainRunResult& r) {
    return sizeof r + lane_bytes(r.lane) + r.eval.first.size() * sizeof(train::Prediction) +
           (r.curves.batches.size() + r.curves.epochs.size()) * sizeof(train::LivePoint);
}
std::size_t race_bytes(const RaceRunResult& r) {
    std::size_t n = sizeof r;
    for (const train::LaneResult& l : r.lanes) n += lane_bytes(l);
    return n;
}
std::size_t batch_bytes(const BatchRunResult& r) { return sizeof r + r.cells.size() * sizeof(train::BatchTiming); }
std::size_t peaks_bytes(const train::MeasuredPeaks& p) { return sizeof p; }

std::string quick_tag(const TrainPlan& p) { return p.quick ? ", quick" : ""; }

}  // namespace

bool RaceRunResult::complete() const {
    for (const train::LaneResult& l : lanes)
        if (l.stopped) return false;
    return !lanes.empty();
}

bool BatchRunResult::complete() const {
    for (const train::BatchTiming& c : cells)
        if (c.reason == "stopped") return false;
    return !cells.empty();
}

// The keys name every setting the run used (and only those), one line each.
std::string TrainView::train_key(const TrainPlan& p) {
    return p.backend + ", " + std::to_string(p.images) + " pictures x " + std::to_string(p.epochs) + " epochs, batch " +
           std::to_string(p.batch) + ", rate " + core::format_fixed(p.learning_rate, 4) + ", budget " +
           std::to_string(p.budget_ns / 1'000'000) + " ms, " + std::to_string(p.eval_images) + " test, " +
           std::to_string(p.scalar_batches) + " plain-loop batches, " + std::to_string(p.race_test_images) +
           " epoch-test" + quick_tag(p);
}

std::string TrainView::race_key(const TrainPlan& p) {
    return std::to_string(p.race_images) + " pictures, " + std::to_string(p.race_test_images) + " test, batch " +
           std::to_string(p.batch) + ", rate " + core::format_fixed(p.learning_rate, 4) + ", " +
           std::to_string(p.race_budget_ns / 1'000'000) + " ms a lane, plain loop " +
           std::to_string(p.race_scalar_budget_ns / 1'000'000) + " ms" + quick_tag(p);
}

std::string TrainView::batch_key(const TrainPlan& p) {
    std::string sizes;
    for (const std::int64_t b : p.batches) sizes += (sizes.empty() ? "" : " ") + std::to_string(b);
    return "batches " + sizes + ", " + std::to_string(p.batch_images) + " pictures, " +
           std::to_string(p.batch_budget_ns / 1'000'000) + " ms" + quick_tag(p);
}

std::string TrainView::peaks_key(bool quick) { return quick ? "quick" : "full"; }

// Payload formats: bump one when its result type or a serialize function above changes.
void TrainView::connect_stored_results() {
    back_with_stored_results<const TrainRunResult>(train_cache_, "train", 1, train_bytes);
    back_with_stored_results<const RaceRunResult>(race_cache_, "train-race", 1, race_bytes);
    back_with_stored_results<const BatchRunResult>(batch_cache_, "train-batch", 1, batch_bytes);
    back_with_stored_results<const train::MeasuredPeaks>(peaks_cache_, "train-peaks", 1, peaks_bytes);
}

void TrainView::keep_result(const std::shared_ptr<const TrainRunResult>& r) {
    train_origin_.reset();
    if (r && r->complete()) train_cache_.put(train_key(r->plan), r, train_bytes(*r), std::time(nullptr));
}
void TrainView::keep_result(const std::shared_ptr<const RaceRunResult>& r) {
    race_origin_.reset();
    if (r && r->complete()) race_cache_.put(race_key(r->plan), r, race_bytes(*r), std::time(nullptr));
}
void TrainView::keep_result(const std::shared_ptr<const BatchRunResult>& r) {
    batch_origin_.reset();
    if (r && r->complete()) batch_cache_.put(batch_key(r->plan), r, batch_bytes(*r), std::time(nullptr));
}
void TrainView::keep_result(const std::shared_ptr<const train::MeasuredPeaks>& p, bool quick) {
    peaks_origin_.reset();
    if (p && p->ok) peaks_cache_.put(peaks_key(quick), p, peaks_bytes(*p), std::time(nullptr));
}

// What the step's tab shows, from the caches when this session has nothing whole for its settings
// (an earlier step's run, an earlier launch, `gpulab prerun`). True when the tab has a result. The
// grey line then says where the tab's result came from, or nothing when it was measured here now.
bool TrainView::find_stored_for_panel() {
    const TrainPlan plan = effective_plan();
    // `shown` stays when it is whole and for these settings; else the cache's, when it has one.
    auto adopt = [](auto& shown, auto& cache, const std::string& key, auto whole, std::optional<StoredOrigin>& from) {
        if (shown && whole(*shown)) return true;
        if (const auto hit = cache.find(key)) {
            shown = hit->result;
            from = StoredOrigin{hit->measured_unix_s, hit->origin};
            return true;
        }
        return shown != nullptr;
    };
    const std::shared_ptr<const TrainRunResult> train_before = train_;
    // Train's weights feed the results tab and the dropped picture on every step: looked up always.
    const bool have_train = adopt(
        train_, train_cache_, train_key(plan),
        [&](const TrainRunResult& r) { return r.complete() && train_key(r.plan) == train_key(plan); }, train_origin_);
    bool have = have_train;
    const std::optional<StoredOrigin>* tab_origin = nullptr;
    switch (panel_) {
        case Panel::Race:
        case Panel::Layers:
            have = adopt(
                race_, race_cache_, race_key(plan),
                [&](const RaceRunResult& r) { return r.complete() && race_key(r.plan) == race_key(plan); }, race_origin_);
            tab_origin = &race_origin_;
            break;
        case Panel::Batch:
            have = adopt(
                batch_, batch_cache_, batch_key(plan),
                [&](const BatchRunResult& r) { return r.complete() && batch_key(r.plan) == batch_key(plan); },
                batch_origin_);
            tab_origin = &batch_origin_;
            break;
        case Panel::Roofline:
            have = adopt(peaks_, peaks_cache_, peaks_key(quick_), [](const train::MeasuredPeaks& p) { return p.ok; },
                         peaks_origin_);
            tab_origin = &peaks_origin_;
            break;
        case Panel::Train:
        case Panel::Results: tab_origin = &train_origin_; break;
        default: break;
    }
    if (tab_origin && *tab_origin) {
        host_.show_cached((*tab_origin)->measured_unix_s, (*tab_origin)->origin);
    } else {
        // The previous step's line would describe a result this tab does not show.
        host_.info.clear();
        set_shown_result_machine("");
    }
    if (train_ && train_ != train_before) {
        predict_dropped();
        classify_probe();
    }
    return have;
}

}  // namespace gpulab::app
