// Three precisions trained side by side: see precision_race.h.
#include "precision_race.h"

#include <cmath>
#include <ctime>
#include <limits>
#include <random>

#include "lesson/lesson.h"
#include "measure/clock.h"
#include "measure/format.h"
#include "race.h"
#include "runtime/cancel.h"

namespace gpulab::train {

double PrecisionLane::last_loss(std::size_t n) const {
    if (batch_loss.empty()) return std::numeric_limits<double>::quiet_NaN();
    n = std::min(n, batch_loss.size());
    double sum = 0.0;
    for (std::size_t i = batch_loss.size() - n; i < batch_loss.size(); ++i) sum += batch_loss[i];
    return sum / static_cast<double>(n);
}

const PrecisionLane* PrecisionRace::lane(ComputePrecision p) const {
    for (const PrecisionLane& l : lanes)
        if (l.precision == p) return &l;
    return nullptr;
}

ImageSet synthetic_pictures(std::int64_t count, std::uint64_t seed) {
    ImageSet s;
    s.count = count;
    s.rows = s.cols = 28;
    s.pixels.resize(static_cast<std::size_t>(count * 28 * 28));
    s.labels.resize(static_cast<std::size_t>(count));
    std::mt19937_64 rng(seed);
    for (std::int64_t i = 0; i < count; ++i) {
        const int label = static_cast<int>(rng() % 10);
        s.labels[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(label);
        std::uint8_t* px = s.pixels.data() + i * 28 * 28;
        for (std::int64_t j = 0; j < 28 * 28; ++j) px[j] = static_cast<std::uint8_t>(rng() % 60);
        const std::int64_t y0 = 2 + (label / 5) * 14, x0 = 2 + (label % 5) * 4;
        for (std::int64_t y = y0; y < y0 + 4; ++y)
            for (std::int64_t x = x0; x < x0 + 4; ++x) px[y * 28 + x] = 230;
    }
    return s;
}

PrecisionRace run_precision_race(const Dataset& data, const std::string& pictures, const PrecisionRaceConfig& config,
                                 const std::function<bool(float)>& keep_going) {
    PrecisionRace race;
    race.config = config;
    race.pictures = pictures;
    race.started_unix_s = static_cast<std::int64_t>(std::time(nullptr));
    const std::int64_t t0 = core::now_ns();
    if (config.batch < 1 || config.batches < 1) {
        race.error = "the race needs at least one batch of at least one picture";
        return race;
    }
    // Every lane trains on the same first batch x batches pictures: one epoch, in the seed's order.
    const Dataset d = subset(data, config.batch * config.batches, config.test_images);
    if (d.train.count < config.batch) {
        race.error = "the data set has fewer training pictures than one batch";
        return race;
    }
    BudgetConfig budget;
    budget.train.batch = config.batch;
    budget.train.seed = config.seed;
    budget.train.sgd = config.sgd;
    budget.max_epochs = 1;
    budget.max_batches = config.batches;
    const auto lanes = static_cast<float>(std::size(kAllComputePrecisions));
    for (const ComputePrecision p : kAllComputePrecisions) {
        const float done = static_cast<float>(race.lanes.size()) / lanes;
        if ((keep_going && !keep_going(done)) || core::cancel_requested()) {
            race.error = "cancelled";
            return race;
        }
        PrecisionLane lane;
        lane.precision = p;
        std::unique_ptr<TrainEngine> engine = make_train_engine(config.engine);
        if (!engine) {
            race.error = "no CPU training engine is called '" + config.engine + "' (" + train_engine_names() + ")";
            return race;
        }
        try {
            engine->set_compute_precision(p);
        } catch (const std::exception& e) {
            race.error = e.what();
            return race;
        }
        const LaneResult r = train_with_budget(
            *engine, d, budget, [&](const LaneResult&, const BatchProgress& b) {
                const float f = done + static_cast<float>(b.batch) / static_cast<float>(config.batches) / lanes;
                return !keep_going || keep_going(f);
            });
        if (r.stopped) {
            race.error = "cancelled";
            return race;
        }
        race.implementation = r.implementation;
        lane.label = r.precision.empty() ? precision_label(p) : r.precision;
        lane.ran = r.ran;
        lane.reason = r.ran ? "" : r.reason;
        lane.batch_loss = r.batch_loss;
        lane.train_ns = r.train_ns;
        lane.test_accuracy = r.final_test_accuracy();
        lane.updates = engine->update_counts();
        race.lanes.push_back(std::move(lane));
    }
    race.wall_ns = core::now_ns() - t0;
    race.ok = true;
    for (const PrecisionLane& l : race.lanes)
        if (!l.ran) {
            race.ok = false;
            race.error = precision_label(l.precision) + std::string(": ") + l.reason;
        }
    return race;
}

namespace {

std::string percent_text(double share) {
    return core::format_fixed(100.0 * share, share < 0.001 && share > 0 ? 3 : 1) + " %";
}

}  // namespace

std::vector<std::string> describe_precision_race(const PrecisionRace& race) {
    std::vector<std::string> lines;
    if (!race.ok) return lines;
    const PrecisionRaceConfig& c = race.config;
    lines.push_back("Each lane trained the training lesson's CNN from the same initial weights on the same " +
                    core::format_count(c.batches) + " batches of " + core::format_count(c.batch) + " (" +
                    race.pictures + ") on " + c.engine + ", SGD rate " + core::format_fixed(c.sgd.learning_rate, 3) +
                    ", momentum " + core::format_fixed(c.sgd.momentum, 2) + ".");
    if (const PrecisionLane* pure = race.lane(ComputePrecision::Bf16Pure); pure && pure->updates.nonzero > 0)
        lines.push_back("BF16 weights: " + core::format_count(pure->updates.lost) + " of " +
                        core::format_count(pure->updates.nonzero) + " weight updates (" +
                        percent_text(pure->updates.lost_share()) +
                        ") were smaller than half a BF16 step at their weight and rounded back to it: lost.");
    if (const PrecisionLane* mixed = race.lane(ComputePrecision::Bf16Mixed); mixed && mixed->updates.nonzero > 0) {
        const double below = static_cast<double>(mixed->updates.below_bf16) / static_cast<double>(mixed->updates.nonzero);
        lines.push_back("FP32 master weights: " + core::format_count(mixed->updates.below_bf16) + " of " +
                        core::format_count(mixed->updates.nonzero) + " updates (" + percent_text(below) +
                        ") left the weight's BF16 copy as it was; the FP32 master copy kept them, and they add up (" +
                        core::format_count(mixed->updates.lost) + " lost even in FP32).");
    }
    // The time column would otherwise read as "BF16 is slower": the lanes model BF16 by rounding, on
    // the FP32 instructions (compute_precision.h), so they pay for the rounding and gain nothing.
    const PrecisionLane* fp32 = race.lane(ComputePrecision::Fp32);
    const PrecisionLane* mixed = race.lane(ComputePrecision::Bf16Mixed);
    if (fp32 && mixed && fp32->ran && mixed->ran)
        lines.push_back("Training times: the BF16 lanes round each number to BF16 and multiply it with the same FP32 "
                        "instructions (a model of the arithmetic, not BF16 hardware), so they took " +
                        core::format_duration(mixed->train_ns) + " against FP32's " +
                        core::format_duration(fp32->train_ns) +
                        ". The next step times BF16 products on instructions built for them.");
    return lines;
}

PrecisionAnswer answer_updates_lost_prompt(const std::vector<std::string>& choices, const PrecisionRace& race) {
    PrecisionAnswer a;
    const PrecisionLane* pure = race.ok ? race.lane(ComputePrecision::Bf16Pure) : nullptr;
    if (!pure || pure->updates.nonzero == 0) {
        a.text = "No BF16-weight training ran" + (race.error.empty() ? std::string(".") : ": " + race.error + ".");
        return a;
    }
    a.percent = 100.0 * pure->updates.lost_share();
    for (std::size_t i = 0; i < choices.size(); ++i) {
        double lo = 0, hi = 0;
        if (core::choice_percent_band(choices[i], lo, hi) && a.percent >= lo && a.percent < hi) a.best_choice = static_cast<int>(i);
    }
    a.text = "With BF16 weights, " + core::format_count(pure->updates.lost) + " of " +
             core::format_count(pure->updates.nonzero) + " updates over " + core::format_count(pure->updates.steps) +
             " steps left their weight unchanged: " + percent_text(pure->updates.lost_share()) + ".";
    a.ok = true;
    return a;
}

}  // namespace gpulab::train
